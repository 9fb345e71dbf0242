package repro

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// ErrHost is wrapped by the errors of a host process that failed or broke
// its line protocol.
var ErrHost = errors.New("repro: host failed")

// host drives testdata/dshclient/host.mjs: it loads a client module,
// applies it to one server and makes tool calls on demand.
type host struct {
	proc  *proc
	lines chan string
	gone  chan struct{} // closed by stop: the line reader may drop lines
}

// callResult is one tool call's answer.
type callResult struct {
	OK     bool
	Text   string // the result JSON, or the error message
	Status int    // the HTTP status the error carried; 0 when none
}

// hostServer is one plugin instance of the host: a server name and its URL.
type hostServer struct{ name, url string }

// startHost runs the host with HOME set to home and waits for READY.
func startHost(node string, p paths, module string, o Options, servers []hostServer, home string) (*host, error) {
	args := []string{p.hostScript, "--module", module}
	for _, s := range servers {
		args = append(args, "--server", s.name, "--url", s.url)
	}
	if o.ReconnectInitial > 0 {
		args = append(args, "--reconnect-initial-ms", strconv.FormatInt(o.ReconnectInitial.Milliseconds(), 10))
	}
	if o.ToolCallTimeout > 0 {
		args = append(args, "--tool-call-timeout-ms", strconv.FormatInt(o.ToolCallTimeout.Milliseconds(), 10))
	}
	h := &host{lines: make(chan string, 64), gone: make(chan struct{})}
	pr, err := startProc(node, p.clientDir, args, withHome(os.Environ(), home), h.onLine)
	if err != nil {
		return nil, err
	}
	h.proc = pr
	line, err := h.next(startWithin)
	if err == nil && line != "READY" {
		err = fmt.Errorf("%w: first line %q, want READY", ErrHost, line)
	}
	if err != nil {
		h.stop()
		return nil, h.withStderr(err)
	}
	return h, nil
}

func (h *host) onLine(line string, _ time.Time) {
	select {
	case h.lines <- line:
	case <-h.gone:
	}
}

// next returns the host's next stdout line.
func (h *host) next(within time.Duration) (string, error) {
	t := time.NewTimer(within)
	defer t.Stop()
	select {
	case line := <-h.lines:
		return line, nil
	case <-h.proc.done:
		select {
		case line := <-h.lines: // printed just before it exited
			return line, nil
		default:
		}
		return "", fmt.Errorf("%w: exited: %v", ErrHost, h.proc.err)
	case <-t.C:
		return "", fmt.Errorf("%w: no answer within %v", ErrHost, within)
	}
}

func (h *host) send(command string) error {
	if _, err := h.proc.stdin.Write([]byte(command + "\n")); err != nil {
		return h.withStderr(fmt.Errorf("%w: write %q: %w", ErrHost, command, err))
	}
	return nil
}

// call makes one tool call; an error means the host itself failed.
func (h *host) call(tool, args string) (callResult, error) {
	if err := h.send("call " + tool + " " + args); err != nil {
		return callResult{}, err
	}
	line, err := h.next(callWithin)
	if err != nil {
		return callResult{}, h.withStderr(err)
	}
	r, err := parseCallLine(line)
	if err != nil {
		return callResult{}, h.withStderr(err)
	}
	return r, nil
}

var statusPrefix = regexp.MustCompile(`^HTTP ([1-5][0-9][0-9]): `)

// parseCallLine reads the host's answer to a call: "OK <json>" or
// "ERR [HTTP <status>: ]<message>".
func parseCallLine(line string) (callResult, error) {
	if rest, ok := strings.CutPrefix(line, "OK "); ok {
		return callResult{OK: true, Text: rest}, nil
	}
	rest, ok := strings.CutPrefix(line, "ERR ")
	if !ok {
		return callResult{}, fmt.Errorf("%w: answer %q is neither OK nor ERR", ErrHost, line)
	}
	r := callResult{Text: rest}
	if m := statusPrefix.FindStringSubmatch(rest); m != nil {
		r.Status, _ = strconv.Atoi(m[1])
	}
	return r, nil
}

// dispose disposes one plugin instance, as DSH does on unload or HMR.
func (h *host) dispose(server string) error {
	if err := h.send("dispose " + server); err != nil {
		return err
	}
	line, err := h.next(callWithin)
	if err == nil && line != "DISPOSED "+server {
		err = fmt.Errorf("%w: answer to dispose %q, want DISPOSED %s", ErrHost, line, server)
	}
	if err != nil {
		return h.withStderr(err)
	}
	return nil
}

// quit asks the host to dispose the plugin and exit, and waits for it.
func (h *host) quit() error {
	defer h.stop()
	if err := h.send("quit"); err != nil {
		return err
	}
	line, err := h.next(callWithin)
	if err == nil && line != "BYE" {
		err = fmt.Errorf("%w: answer to quit %q, want BYE", ErrHost, line)
	}
	if err == nil && !h.proc.exited(callWithin) {
		err = fmt.Errorf("%w: still running %v after BYE", ErrHost, callWithin)
	}
	if err != nil {
		return h.withStderr(err)
	}
	return nil
}

// stop kills the host if it still runs. Safe to call more than once.
func (h *host) stop() {
	select {
	case <-h.gone:
	default:
		close(h.gone)
	}
	h.proc.stop()
}

func (h *host) stderr() string { return h.proc.stderr.String() }

func (h *host) withStderr(err error) error {
	if s := strings.TrimSpace(h.stderr()); s != "" {
		return fmt.Errorf("%w\nhost stderr:\n%s", err, s)
	}
	return err
}

// withHome returns env with HOME replaced by home.
func withHome(env []string, home string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, "HOME=") {
			out = append(out, kv)
		}
	}
	return append(out, "HOME="+home)
}
