// Package sockhold is a supervisor for tests that does what systemd does
// with a .socket unit and a service with Restart=always: it holds
// listening sockets for the whole run, starts the command with them
// passed by the sd_listen_fds protocol (descriptors 3…, LISTEN_FDS,
// LISTEN_FDNAMES, and LISTEN_PID set to the command's own pid), and
// starts it again after every exit. While the command is down, a host's
// connections wait in the held sockets' queues instead of being refused.
package sockhold

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// DefaultRestartDelay is how long after an exit the command starts again
// when Options.RestartDelay is zero (systemd's RestartSec default).
const DefaultRestartDelay = 100 * time.Millisecond

// Options say which sockets to hold and what to run.
type Options struct {
	// TCP and Unix are the addresses to listen on (host:port; a socket
	// path, made 0600 in a directory that must exist). They are passed in
	// that order, TCP first.
	TCP, Unix []string
	// Names are the LISTEN_FDNAMES entries, one per socket in the order
	// passed. Nil: none are named.
	Names []string
	// Command makes the command for each start. Its ExtraFiles must be
	// empty: the sockets take descriptors 3 on.
	Command func() *exec.Cmd
	// RestartDelay is the pause after an exit. Zero: DefaultRestartDelay.
	RestartDelay time.Duration
}

// Exit is one end of the command.
type Exit struct {
	PID    int
	At     time.Time
	Killed bool   // by Kill
	State  string // as os.ProcessState says it
}

// Holder holds the sockets and supervises the command.
type Holder struct {
	opts   Options
	files  []*os.File // the held sockets; each start gets them at 3…
	addrs  []string
	cancel context.CancelFunc
	done   chan struct{}

	// gate is held while the command is started, and by KillThen until
	// its fn has run: no start comes between a kill and what must see the
	// killed run's leavings first.
	gate     sync.Mutex
	mu       sync.Mutex
	stopping bool
	cur      *exec.Cmd
	exited   chan struct{} // closed when cur has been reaped
	killing  bool
	starts   int
	exits    []Exit
	started  chan struct{} // closed and replaced at each start
	err      error         // the last start that failed
}

// Start listens on every address and starts the command. Stop ends both.
func Start(opts Options) (*Holder, error) {
	if opts.RestartDelay <= 0 {
		opts.RestartDelay = DefaultRestartDelay
	}
	h := &Holder{opts: opts, done: make(chan struct{}), started: make(chan struct{})}
	if err := h.listen(); err != nil {
		h.closeFiles()
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel = cancel
	go h.supervise(ctx)
	return h, nil
}

func (h *Holder) listen() error {
	for _, a := range h.opts.TCP {
		ln, err := net.Listen("tcp", a)
		if err != nil {
			return fmt.Errorf("sockhold: %w", err)
		}
		if err := h.hold(ln); err != nil {
			return err
		}
	}
	for _, p := range h.opts.Unix {
		ln, err := net.Listen("unix", p)
		if err != nil {
			return fmt.Errorf("sockhold: %w", err)
		}
		ln.(*net.UnixListener).SetUnlinkOnClose(true)
		if err := os.Chmod(p, 0o600); err != nil {
			_ = ln.Close()
			return fmt.Errorf("sockhold: %w", err)
		}
		if err := h.hold(ln); err != nil {
			return err
		}
	}
	return nil
}

// hold keeps a duplicate of ln's socket to pass (the listener itself is
// closed: the holder never accepts, as systemd does not for Accept=no).
func (h *Holder) hold(ln net.Listener) error {
	f, err := ln.(interface{ File() (*os.File, error) }).File()
	h.addrs = append(h.addrs, ln.Addr().String())
	if _, unix := ln.(*net.UnixListener); unix {
		// The socket file stays until Stop: closing this listener must
		// not unlink it.
		ln.(*net.UnixListener).SetUnlinkOnClose(false)
	}
	_ = ln.Close()
	if err != nil {
		return fmt.Errorf("sockhold: %w", err)
	}
	h.files = append(h.files, f)
	return nil
}

// Addrs are the held sockets' addresses, in the order passed.
func (h *Holder) Addrs() []string { return append([]string(nil), h.addrs...) }

func (h *Holder) closeFiles() {
	for _, f := range h.files {
		_ = f.Close()
	}
	for _, p := range h.opts.Unix {
		_ = os.Remove(p)
	}
}

// supervise starts the command, and again after every exit, until ctx ends.
func (h *Holder) supervise(ctx context.Context) {
	defer close(h.done)
	for ctx.Err() == nil {
		h.gate.Lock()
		exited, err := h.startOnce()
		h.gate.Unlock()
		if err == nil {
			<-exited
		}
		select {
		case <-ctx.Done():
		case <-time.After(h.opts.RestartDelay):
		}
	}
}

var errStopping = errors.New("sockhold: stopping")

// launchScript sets LISTEN_PID to the shell's own pid, which exec keeps
// for the command: the protocol wants the pid of the process that takes
// the sockets, known only after the fork.
const launchScript = `LISTEN_PID=$$; export LISTEN_PID; exec "$0" "$@"`

// startOnce starts the command once and returns a channel closed when it
// has been reaped.
func (h *Holder) startOnce() (<-chan struct{}, error) {
	inner := h.opts.Command()
	if len(inner.ExtraFiles) > 0 {
		return nil, h.failed(errors.New("sockhold: the command's ExtraFiles must be empty"))
	}
	cmd := exec.Command("/bin/sh", append([]string{"-c", launchScript, inner.Path}, inner.Args[1:]...)...)
	env := inner.Env
	if env == nil {
		env = os.Environ()
	}
	cmd.Env = append(withoutListenVars(env), "LISTEN_FDS="+strconv.Itoa(len(h.files)))
	if h.opts.Names != nil {
		cmd.Env = append(cmd.Env, "LISTEN_FDNAMES="+strings.Join(h.opts.Names, ":"))
	}
	cmd.Dir, cmd.Stdin, cmd.Stdout, cmd.Stderr = inner.Dir, inner.Stdin, inner.Stdout, inner.Stderr
	cmd.ExtraFiles = h.files
	h.mu.Lock()
	if h.stopping {
		h.mu.Unlock()
		return nil, errStopping
	}
	if err := cmd.Start(); err != nil {
		h.err = fmt.Errorf("sockhold: start: %w", err)
		h.mu.Unlock()
		return nil, h.err
	}
	exited := make(chan struct{})
	h.cur, h.exited = cmd, exited
	h.starts++
	close(h.started)
	h.started = make(chan struct{})
	h.mu.Unlock()
	go func() {
		_ = cmd.Wait()
		h.mu.Lock()
		h.exits = append(h.exits, Exit{PID: cmd.Process.Pid, At: time.Now(), Killed: h.killing, State: cmd.ProcessState.String()})
		h.cur, h.killing = nil, false
		h.mu.Unlock()
		close(exited)
	}()
	return exited, nil
}

func (h *Holder) failed(err error) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.err = err
	return err
}

func withoutListenVars(env []string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, "LISTEN_") {
			out = append(out, kv)
		}
	}
	return out
}

// PID is the running command's pid, 0 between runs.
func (h *Holder) PID() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.cur == nil {
		return 0
	}
	return h.cur.Process.Pid
}

// Starts is how many times the command was started.
func (h *Holder) Starts() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.starts
}

// WaitStarts waits until the command has been started n times in all.
func (h *Holder) WaitStarts(n int, within time.Duration) error {
	deadline := time.After(within)
	for {
		h.mu.Lock()
		starts, next, err := h.starts, h.started, h.err
		h.mu.Unlock()
		if starts >= n {
			return nil
		}
		select {
		case <-next:
		case <-deadline:
			return fmt.Errorf("sockhold: %d starts after %v, want %d (last error: %v)", starts, within, n, err)
		}
	}
}

// Exits lists every end of the command so far.
func (h *Holder) Exits() []Exit {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]Exit(nil), h.exits...)
}

// Kill sends SIGKILL to the running command and waits until it has been
// reaped; the holder starts it again. It returns the killed pid, 0 when
// none was running.
func (h *Holder) Kill() int { return h.KillThen(func() {}) }

// KillThen is Kill that runs fn once the command is reaped and before it
// is started again (a look at the files the killed run left).
func (h *Holder) KillThen(fn func()) int {
	h.gate.Lock()
	defer h.gate.Unlock()
	defer fn()
	h.mu.Lock()
	cmd, exited := h.cur, h.exited
	if cmd != nil {
		h.killing = true
	}
	h.mu.Unlock()
	if cmd == nil {
		return 0
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	<-exited
	return cmd.Process.Pid
}

// Stop starts the command no more, sends it sig, waits up to grace for its
// exit (then kills it), and closes the sockets.
func (h *Holder) Stop(sig os.Signal, grace time.Duration) {
	h.cancel()
	h.mu.Lock()
	h.stopping = true // no start after this one
	cmd, exited := h.cur, h.exited
	h.mu.Unlock()
	if cmd != nil {
		_ = cmd.Process.Signal(sig)
		select {
		case <-exited:
		case <-time.After(grace):
			_ = cmd.Process.Kill()
			<-exited
		}
	}
	<-h.done
	h.closeFiles()
}
