package stdio

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/memtrim"
	"github.com/mcpwatchdog/watchdog/internal/proxywire"
)

// ExitNotStarted is Run's exit code when the server cannot be started at
// all (its command is not there): a shell's "command not found".
const ExitNotStarted = 127

// ErrNoCommand: Options.Command is empty.
var ErrNoCommand = errors.New("stdio: no server command")

// phase is where the supervisor is with its server.
type phase int

const (
	phaseUp         phase = iota // a run serves the host
	phaseRestarting              // a run died; the next is being started
	phaseGaveUp                  // a crash loop: no restarts for now
	phaseClosing                 // the host went: its server is being ended
)

// call is a request of the host's that its server has not answered yet.
type call struct {
	method string
	// line is the request as the host sent it (nil for one too long to
	// hold), to send again to the next run when the one it was written
	// to died without reading it, or when it changes nothing (again).
	line  []byte
	again bool
	gen   int
	// start is where in its run's input it was written.
	start int64
	at    time.Time
}

// session is what the host said to open its session, replayed to each
// new run, and the first run's answer, to compare the next ones with.
type session struct {
	initialize, initialized []byte
	id                      []byte
	answer                  []byte
	answered                bool
}

// Supervisor runs one server for one host; Run makes and owns it.
type Supervisor struct {
	opt             Options
	lim             Limits
	hostOut, errOut *out
	// hostIn is the host's stdin as fromHost reads it; hostSpin makes it
	// spin when the host's next message is due (nil: it does not spin).
	hostIn    io.Reader
	hostSpin  *hotReader
	wg        sync.WaitGroup
	closeOnce sync.Once
	stopped   chan struct{} // closed by closeDown

	mu         sync.Mutex
	phase      phase
	changed    chan struct{} // closed and replaced at each phase change
	cur        *child
	gen        int
	starts     int
	exits      []time.Time
	calls      map[string]*call
	serverReqs map[string]int // the server's requests to the host, by id: the run that sent each
	sess       *session
	internal   map[string]chan []byte // answers to the supervisor's own requests, by id
	seq        int
	lastStderr string
	exitCode   int
	hang       hangState
}

// Run runs opt.Command as its host's server until the host goes (its
// stdin ends) or ctx ends, starting it again each time it dies while the
// host is there. It returns the exit code the supervisor should exit with.
// The caller owns opt.Stdin. A pipe or socket is read through a
// duplicate that Run closes when it returns; a read of any other reader
// still blocked when ctx ends returns when the caller closes it.
func Run(ctx context.Context, opt Options) (int, error) {
	if len(opt.Command) == 0 {
		return 2, ErrNoCommand
	}
	s := newSupervisor(opt)
	var closeIn func()
	s.hostIn, s.hostSpin, closeIn = hotStdin(s.opt.Stdin)
	defer closeIn()
	if opt.StateDir != "" {
		stop := s.link(ctx)
		defer stop()
	}
	c, err := s.spawn(1)
	if err != nil {
		fmt.Fprintf(s.errOut.w, "watchdog stdio: %s: %v\n", s.name(), err)
		return ExitNotStarted, nil
	}
	s.mu.Lock()
	s.cur, s.gen, s.starts = c, 1, 1
	s.mu.Unlock()
	s.report(proxywire.Stdio{Kind: proxywire.StdioStarted, Child: c.pid, Starts: 1,
		Detail: fmt.Sprintf("%s: started %s under the watchdog (pid %d)", s.who(), s.name(), c.pid)})
	if opt.Signals != nil {
		s.wg.Add(1)
		go s.passSignals(ctx)
	}
	if opt.Trim {
		s.trim()
	}
	hostDone := make(chan error, 1)
	go func() { hostDone <- s.fromHost() }() // ends when the caller's Stdin ends
	select {
	case err = <-hostDone:
	case <-ctx.Done():
	case <-s.stopped:
	}
	s.closeDown()
	s.wg.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.exitCode, err
}

// link listens for the daemon in the state directory and has each report
// go to it too; stop ends it once Run has said its last.
func (s *Supervisor) link(ctx context.Context) (stop func()) {
	l, err := Listen(s.opt.StateDir)
	if err != nil {
		s.errOut.note("not reporting to the daemon: %v", err)
		return func() {}
	}
	report := s.opt.Report
	s.opt.Report = func(r proxywire.Stdio) {
		l.Send(r)
		if report != nil {
			report(r)
		}
	}
	lctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	go func() { defer close(done); l.Serve(lctx) }()
	return func() { cancel(); <-done }
}

// trim lets go of what a relay does not use until the host goes.
func (s *Supervisor) trim() {
	ctx, cancel := context.WithCancel(context.Background())
	s.wg.Add(3)
	go func() { defer s.wg.Done(); <-s.stopped; cancel() }()
	go func() {
		defer s.wg.Done()
		memtrim.LoopEvery(ctx, slog.New(slog.NewTextHandler(s.opt.Stderr, nil)), trimFirst, time.Minute)
	}()
	go func() { defer s.wg.Done(); memtrim.HeapLoop(ctx) }()
}

// trimFirst: a relay's start-up is over once its server is up.
const trimFirst = 2 * time.Second

func newSupervisor(opt Options) *Supervisor {
	lim := DefaultLimits()
	if opt.Limits != nil {
		lim = opt.Limits.filled()
	}
	if opt.Stdin == nil {
		opt.Stdin = os.Stdin
	}
	if opt.Stdout == nil {
		opt.Stdout = os.Stdout
	}
	if opt.Stderr == nil {
		opt.Stderr = os.Stderr
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	return &Supervisor{opt: opt, lim: lim, hostOut: &out{w: opt.Stdout}, errOut: &out{w: opt.Stderr},
		stopped: make(chan struct{}), changed: make(chan struct{}), calls: map[string]*call{},
		serverReqs: map[string]int{}, internal: map[string]chan []byte{}}
}

func (s *Supervisor) now() time.Time { return s.opt.Now() }

// name is the server's name as it is said.
func (s *Supervisor) name() string {
	if s.opt.Server != "" {
		return s.opt.Server
	}
	return filepath.Base(s.opt.Command[0])
}

// who is what a sentence about the server starts with: "opencode: mem".
func (s *Supervisor) who() string {
	if s.opt.Host != "" {
		return s.opt.Host
	}
	return "watchdog stdio"
}

func (s *Supervisor) report(r proxywire.Stdio) {
	if s.opt.Report == nil {
		return
	}
	r.Host, r.Server, r.Time, r.PID = s.opt.Host, s.name(), s.now(), os.Getpid()
	s.opt.Report(r)
}

// setPhase changes the phase and wakes whoever waits on a change. s.mu held.
func (s *Supervisor) setPhase(p phase) {
	s.phase = p
	close(s.changed)
	s.changed = make(chan struct{})
}

// fromHost relays the host's messages to the server until the host's
// stdin ends.
func (s *Supervisor) fromHost() error {
	lr := newLineReader(s.hostIn, s.lim.Whole)
	for {
		line, big, err := lr.next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("stdio: reading the host: %w", err)
		}
		if big {
			s.relayBigToServer(lr, line)
			continue
		}
		s.toServer(line)
	}
}

// toServer sends one whole message of the host's to the server, waiting
// for a restart under way.
func (s *Supervisor) toServer(line []byte) {
	if len(bytes.TrimSpace(line)) == 0 {
		return
	}
	f := scan(line)
	if f.Response() {
		s.answerToServer(f, line)
		return
	}
	for {
		c, err := s.await()
		if err != nil {
			if f.Request() {
				s.fail(f.ID, err)
			}
			return
		}
		// The call is recorded and written under the run's input lock,
		// which its death takes before failing the calls it cut off: a
		// call is either written whole and failed by the death, or not
		// written and sent to the next run, never both.
		c.inMu.Lock()
		s.sending(c, f, line)
		err = c.writeLocked(append(line, '\n'))
		if err != nil {
			s.unsend(f)
		}
		c.inMu.Unlock()
		switch {
		case err == nil:
			if f.Request() {
				c.spin.expect() // its answer is due
			}
			return
		case errors.Is(err, errNotReading):
			s.notReading(c, f)
			return
		}
		// The run died under the write: the message never reached it
		// whole, so it did not run. It waits for the next run.
		<-c.handled
	}
}

// sending records a message about to be written to run c.
func (s *Supervisor) sending(c *child, f fields, line []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case f.Request():
		cl := &call{method: f.Method, gen: c.gen, at: s.now(), start: c.written, again: sendAgain(f.Method)}
		if line != nil {
			cl.line = bytes.Clone(line)
		}
		s.calls[string(f.ID)] = cl
		if f.Method == "initialize" {
			s.sess = &session{initialize: bytes.Clone(line), id: bytes.Clone(f.ID)}
		}
		s.armHang()
	case f.Method == "notifications/initialized" && s.sess != nil:
		s.sess.initialized = bytes.Clone(line)
	}
}

func (s *Supervisor) unsend(f fields) {
	if !f.Request() {
		return
	}
	s.mu.Lock()
	delete(s.calls, string(f.ID))
	s.mu.Unlock()
}

// sendAgain reports whether a request changes nothing on the server, and
// so may be sent again to the next run when the one it was sent to died:
// the legacy handshake, the 2026-07-28 discovery and notification stream,
// pings and the lists.
func sendAgain(method string) bool {
	switch method {
	case "initialize", "server/discover", "subscriptions/listen", "ping",
		"tools/list", "prompts/list", "resources/list", "resources/templates/list":
		return true
	}
	return false
}

// answered notes the server's answer to a host's request.
func (s *Supervisor) answered(f fields, line []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.calls, string(f.ID))
	if s.sess != nil && !s.sess.answered && bytes.Equal(f.ID, s.sess.id) {
		s.sess.answered = true
		if line != nil && f.Result {
			s.sess.answer = bytes.Clone(line)
		}
	}
}

// answerToServer sends the host's answer to a request of the server's to
// the run that asked it; a run that died since never gets it.
func (s *Supervisor) answerToServer(f fields, line []byte) {
	s.mu.Lock()
	gen, known := s.serverReqs[string(f.ID)]
	delete(s.serverReqs, string(f.ID))
	c := s.cur
	s.mu.Unlock()
	if c == nil || (known && gen != c.gen) {
		return
	}
	_ = c.write(line)
}

// await is the run to send to, waiting (bounded) for a restart under way.
func (s *Supervisor) await() (*child, error) {
	var timeout <-chan time.Time
	for {
		s.mu.Lock()
		switch s.phase {
		case phaseUp:
			c := s.cur
			s.mu.Unlock()
			return c, nil
		case phaseClosing:
			s.mu.Unlock()
			return nil, errClosing
		case phaseGaveUp:
			if !s.rested() {
				err := s.gaveUpError()
				s.mu.Unlock()
				return nil, err
			}
			s.setPhase(phaseRestarting)
			s.wg.Add(1)
			go s.restart(s.now(), 0)
		}
		ch := s.changed
		s.mu.Unlock()
		if timeout == nil {
			t := time.NewTimer(s.lim.RestartWait)
			defer t.Stop()
			timeout = t.C
		}
		select {
		case <-ch:
		case <-timeout:
			return nil, &callError{reason: "restarting", words: fmt.Sprintf(
				"the MCP server %q is being started again and did not come back within %s", s.name(), s.lim.RestartWait)}
		}
	}
}

// rested reports whether a crash window has passed since the last exit,
// when a server given up on is tried once more. s.mu held.
func (s *Supervisor) rested() bool {
	return len(s.exits) == 0 || s.now().Sub(s.exits[len(s.exits)-1]) >= s.lim.CrashWindow
}

// closeDown ends the server because its host went (or ctx ended, or the
// host signalled it): stdin closed, then SIGTERM, then SIGKILL.
func (s *Supervisor) closeDown() {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.setPhase(phaseClosing)
		s.stopHang()
		c := s.cur
		if c != nil {
			c.signalled = true
		}
		s.mu.Unlock()
		close(s.stopped)
		if c != nil {
			s.wg.Add(1)
			go s.end(c)
		}
	})
}

// end ends run c, each step given Grace.
func (s *Supervisor) end(c *child) {
	defer s.wg.Done()
	c.inMu.Lock()
	_ = c.in.Close()
	c.inMu.Unlock()
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		t := time.NewTimer(s.lim.Grace)
		select {
		case <-c.exited:
			t.Stop()
			return
		case <-t.C:
		}
		c.signal(sig)
	}
}

// hostGone: the host no longer reads what the server writes.
func (s *Supervisor) hostGone() { s.closeDown() }
