//go:build linux

// The behaviour tests read /proc (a process's state, the unread bytes of its
// stdin, its peak RSS): they build on Linux only.
package stdio_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/healer/stdio"
	"github.com/mcpwatchdog/watchdog/internal/proxywire"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// serverBin is the real test server (internal/testbed/stdioserver), built once.
var serverBin string

// The test binary is also the supervisor as a process of its own (for
// the kill -9 and signal tests): with shimEnv set it runs stdio.Run on
// its own stdin and stdout, the command in the arguments after "--".
const shimEnv = "WATCHDOG_STDIO_TEST_SHIM"

func TestMain(m *testing.M) {
	if os.Getenv(shimEnv) == "1" {
		os.Exit(runShim())
	}
	dir, err := os.MkdirTemp("", "stdioserver")
	if err != nil {
		panic(err)
	}
	serverBin = filepath.Join(dir, "stdioserver")
	out, err := exec.Command("go", "build", "-o", serverBin, "github.com/mcpwatchdog/watchdog/internal/testbed/stdioserver").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "building the test server: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

func runShim() int {
	args := os.Args
	for i, a := range args {
		if a == "--" {
			args = args[i+1:]
			break
		}
	}
	sigs := make(chan os.Signal, 4)
	notifySignals(sigs)
	lim := fastLimits()
	code, err := stdio.Run(context.Background(), stdio.Options{Command: args, Server: "mem", Signals: sigs, Limits: &lim})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	return code
}

// fastLimits are limits a test can wait out.
func fastLimits() stdio.Limits {
	return stdio.Limits{Backoff: 20 * time.Millisecond, MaxBackoff: 100 * time.Millisecond, RestartWait: 10 * time.Second,
		HangAfter: 400 * time.Millisecond, PingWait: 400 * time.Millisecond, WriteWait: 500 * time.Millisecond, Grace: time.Second}
}

// syncBuf is a writer tests read while it is written.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
	n  int64
	// keep bounds what is kept (a 100 MB line is counted, not kept)
	keep int
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n += int64(len(p))
	if room := s.keep - s.b.Len(); room > 0 {
		s.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// rig is a supervisor run in this process between a host's pipes.
type rig struct {
	t       *testing.T
	pids    string
	hostIn  *os.File       // what the host writes: a real pipe, read spinning
	hostOut *io.PipeReader // what the host reads
	stderr  *syncBuf
	mu      sync.Mutex
	reports []proxywire.Stdio
	br      *bufio.Reader // the host's reader of raw lines
	done    chan int
}

type rigOpt func(*stdio.Options)

// stdioOptions is stdio.Options, for rig options written inline.
type stdioOptions = stdio.Options

func restartHung(o *stdio.Options) { o.RestartHung = true }

// start runs the test server with args under a supervisor.
func start(t *testing.T, args []string, opts ...rigOpt) *rig {
	t.Helper()
	return startCmd(t, serverBin, args, opts...)
}

// startCmd runs the server at bin with args under a supervisor.
func startCmd(t *testing.T, bin string, args []string, opts ...rigOpt) *rig {
	t.Helper()
	r := &rig{t: t, pids: filepath.Join(t.TempDir(), "pids"), stderr: &syncBuf{keep: 1 << 20}, done: make(chan int, 1)}
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = inR.Close() })
	outR, outW := io.Pipe()
	r.hostIn, r.hostOut = inW, outR
	lim := fastLimits()
	opt := stdio.Options{Command: append([]string{bin, "-pids", r.pids}, args...), Server: "mem", Host: "Codex CLI",
		Stdin: inR, Stdout: outW, Stderr: r.stderr, Limits: &lim, Report: r.report}
	for _, o := range opts {
		o(&opt)
	}
	go func() {
		code, err := stdio.Run(context.Background(), opt)
		if err != nil {
			t.Errorf("Run: %v", err)
		}
		_ = outW.Close()
		r.done <- code
	}()
	t.Cleanup(func() {
		_ = inW.Close()
		select {
		case <-r.done:
		case <-time.After(15 * time.Second):
			t.Errorf("the supervisor did not end within 15 s of its host going")
		}
		r.noneAlive()
	})
	return r
}

func (r *rig) report(s proxywire.Stdio) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reports = append(r.reports, s)
}

// kinds is the kinds reported so far.
func (r *rig) kinds() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, s := range r.reports {
		out = append(out, s.Kind)
	}
	return out
}

// waitKind waits for a report of kind and returns it.
func (r *rig) waitKind(kind string) proxywire.Stdio {
	r.t.Helper()
	var got proxywire.Stdio
	waitFor(r.t, "a "+kind+" report", func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		for _, s := range r.reports {
			if s.Kind == kind {
				got = s
				return true
			}
		}
		return false
	})
	return got
}

// The protocol eras a host may speak: the legacy handshake (initialize,
// a session the supervisor replays to each new run) and 2026-07-28
// (server/discover, nothing to replay).
const (
	legacy = "2025-06-18"
	modern = "2026-07-28"
)

var eras = []string{legacy, modern}

// client connects a real Go SDK client as the host, speaking era.
func (r *rig) client(opts *mcp.ClientOptions, era string) *mcp.ClientSession {
	r.t.Helper()
	return r.connect(mcp.NewClient(&mcp.Implementation{Name: "test-host", Version: "1"}, opts), era)
}

func (r *rig) connect(c *mcp.Client, era string) *mcp.ClientSession {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.IOTransport{Reader: r.hostOut, Writer: r.hostIn}, &mcp.ClientSessionOptions{ProtocolVersion: era})
	if err != nil {
		r.t.Fatalf("connect through the supervisor: %v", err)
	}
	r.t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// callAsync calls tool in the background; its error comes on the
// channel. The call is cancelled when the test ends (before the client
// closes: a client waits for its calls).
func callAsync(t *testing.T, cs *mcp.ClientSession, tool string) <-chan error {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	ch := make(chan error, 1)
	go func() {
		_, err := callCtx(ctx, cs, tool, map[string]any{})
		ch <- err
	}()
	return ch
}

// clientWithRoots connects a host that offers roots.
func (r *rig) clientWithRoots(era string, roots ...string) *mcp.ClientSession {
	r.t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "test-host", Version: "1"}, nil)
	for _, u := range roots {
		//lint:ignore SA1019 roots/list is the legacy era's server-to-host request, which the supervisor relays
		c.AddRoots(&mcp.Root{URI: u})
	}
	return r.connect(c, era)
}

// call calls tool and returns its text, or the error's.
func call(t *testing.T, cs *mcp.ClientSession, tool string, args any) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return callCtx(ctx, cs, tool, args)
}

func callCtx(ctx context.Context, cs *mcp.ClientSession, tool string, args any) (string, error) {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return "", err
	}
	var sb strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			sb.WriteString(tc.Text)
		}
	}
	if res.IsError {
		return "", fmt.Errorf("tool error: %s", sb.String())
	}
	return sb.String(), nil
}

// pids is the server pids started so far (g-prefixed lines are grandchildren).
func (r *rig) servers() []int { return readPids(r.t, r.pids, "") }

func readPids(t *testing.T, file, prefix string) []int {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out []int
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := sc.Text()
		if prefix == "" && strings.HasPrefix(line, "g") {
			continue
		}
		rest, ok := strings.CutPrefix(line, prefix)
		if !ok {
			continue
		}
		if n, err := strconv.Atoi(rest); err == nil {
			out = append(out, n)
		}
	}
	return out
}

// kill kills the newest server -9.
func (r *rig) kill() int {
	r.t.Helper()
	ps := r.servers()
	if len(ps) == 0 {
		r.t.Fatal("no server started")
	}
	pid := ps[len(ps)-1]
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		r.t.Fatalf("kill -9 %d: %v", pid, err)
	}
	return pid
}

// noneAlive fails if a server or grandchild it started is still alive.
func (r *rig) noneAlive() {
	r.t.Helper()
	all := append(readPids(r.t, r.pids, ""), readPids(r.t, r.pids, "g")...)
	for _, pid := range all {
		waitFor(r.t, fmt.Sprintf("process %d to be gone", pid), func() bool { return !alive(pid) })
	}
}

// alive reports whether pid is a process that has not ended (a zombie
// has ended).
func alive(pid int) bool {
	st := procState(pid)
	return st != 0 && st != 'Z' && st != 'X'
}

// waitFor polls cond until it holds or 20 s pass.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// rawLine sends one raw JSON-RPC line as the host.
func (r *rig) rawLine(v any) {
	r.t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		r.t.Fatal(err)
	}
	if _, err := r.hostIn.Write(append(b, '\n')); err != nil {
		r.t.Fatalf("write to the supervisor: %v", err)
	}
}

func writeFile(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
}
