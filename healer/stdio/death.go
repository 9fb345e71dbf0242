package stdio

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"syscall"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/proxywire"
)

// died handles the end of run c: an exit while the host is there is a
// crash, healed by a restart; the calls it left unanswered that may have
// done something get an error now, the others wait for the next run.
func (s *Supervisor) died(c *child) {
	defer close(c.handled)
	s.mu.Lock()
	if s.cur == c {
		s.cur = nil
	}
	if s.phase == phaseClosing || c.signalled {
		if c.cmd != nil {
			s.exitCode = c.cmd.ProcessState.ExitCode()
		}
		s.mu.Unlock()
		return
	}
	now := s.now()
	s.exits = append(recent(s.exits, now, s.lim.CrashWindow), now)
	s.stopHang()
	failed := s.takeCalls(c, false)
	stderr, n := s.lastStderr, len(s.exits)
	loop := n >= s.lim.CrashLoop
	if loop {
		s.setPhase(phaseGaveUp)
		failed = append(failed, s.takeCalls(c, true)...)
	} else {
		s.setPhase(phaseRestarting)
	}
	s.mu.Unlock()

	s.report(proxywire.Stdio{Kind: proxywire.StdioExited, Child: c.pid, Exit: c.status, Stderr: stderr,
		Detail: fmt.Sprintf("%s: %s exited (%s) while the host was connected%s", s.who(), s.name(), c.status, lastWords(stderr))})
	s.errOut.note("%s exited (%s)", s.name(), c.status)
	cut := &callError{reason: "exited", words: fmt.Sprintf(
		"the MCP server %q exited (%s) while handling this request: it may or may not have run, and it was not sent again; the watchdog is starting the server again", s.name(), c.status)}
	if loop {
		cut = s.gaveUpErrorNow(stderr)
	}
	for _, f := range failed {
		s.failCall(f, cut)
	}
	if loop {
		s.report(proxywire.Stdio{Kind: proxywire.StdioGaveUp, Exit: c.status, Stderr: stderr, Detail: s.who() + ": " + cut.words})
		s.errOut.note("%s", cut.words)
		return
	}
	s.wg.Add(1)
	go s.restart(now, s.backoff(n))
}

// recent is the exits within window of now.
func recent(exits []time.Time, now time.Time, window time.Duration) []time.Time {
	i := 0
	for i < len(exits) && now.Sub(exits[i]) >= window {
		i++
	}
	return exits[i:]
}

// backoff is the wait before the restart after the n-th exit of a window:
// none for the first, then Backoff doubling up to MaxBackoff.
func (s *Supervisor) backoff(n int) time.Duration {
	if n <= 1 {
		return 0
	}
	d := s.lim.Backoff
	for i := 2; i < n && d < s.lim.MaxBackoff; i++ {
		d *= 2
	}
	return min(d, s.lim.MaxBackoff)
}

// failed is a call that gets an error, with its id.
type failed struct {
	id []byte
	*call
}

// takeCalls removes and returns the calls run c took with it: those it
// read that may have changed something (all: every call, whatever its
// run), oldest first. A call written after what it read it never saw: it
// is sent to the next run. s.mu held.
func (s *Supervisor) takeCalls(c *child, all bool) []failed {
	var out []failed
	for id, cl := range s.calls {
		if !all && cl.gen == c.gen && cl.line != nil && cl.start >= c.read {
			cl.again = true // never read: it did not run
		}
		if all || (cl.gen == c.gen && !cl.again) {
			out = append(out, failed{id: []byte(id), call: cl})
			delete(s.calls, id)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].at.Before(out[j].at) })
	return out
}

// failCall answers a call with err and says so.
func (s *Supervisor) failCall(f failed, err *callError) {
	s.fail(f.id, err)
	s.report(proxywire.Stdio{Kind: proxywire.StdioCallFailed, Method: f.method,
		Detail: fmt.Sprintf("%s: a %s call to %s failed: %s", s.who(), f.method, s.name(), err.reason)})
}

func lastWords(stderr string) string {
	if stderr == "" {
		return ""
	}
	return "; its last words on stderr: " + strconv.Quote(stderr)
}

// gaveUpError is the error a request gets while the restarts are
// stopped. s.mu held.
func (s *Supervisor) gaveUpError() *callError { return s.gaveUpErrorNow(s.lastStderr) }

func (s *Supervisor) gaveUpErrorNow(stderr string) *callError {
	return &callError{reason: "crash_loop", stderr: stderr, words: fmt.Sprintf(
		"the MCP server %q exited %d times within %s; the watchdog stopped starting it again for now%s",
		s.name(), s.lim.CrashLoop, s.lim.CrashWindow, lastWords(stderr))}
}

// restart starts the next run after delay, replays the host's session
// to it and sends it again the calls that may be; then the host's
// messages flow again.
func (s *Supervisor) restart(diedAt time.Time, delay time.Duration) {
	defer s.wg.Done()
	if !s.sleep(delay) {
		return
	}
	s.mu.Lock()
	if s.phase == phaseClosing {
		s.mu.Unlock()
		return
	}
	s.gen++
	gen := s.gen
	s.mu.Unlock()
	c, err := s.spawn(gen)
	if err != nil {
		s.notStarted(err)
		return
	}
	s.mu.Lock()
	if s.phase == phaseClosing {
		c.signalled = true
		s.mu.Unlock()
		c.signal(syscall.SIGKILL)
		return
	}
	s.cur = c
	s.starts++
	starts, sess := s.starts, s.sess
	s.mu.Unlock()
	changed, answer, err := s.replay(c, sess)
	if err != nil {
		s.errOut.note("%s: %v", s.name(), err)
		c.signal(syscall.SIGKILL) // its death comes back through reap, as a crash
		return
	}
	s.sendAgain(c)
	s.mu.Lock()
	if s.cur == c && s.phase == phaseRestarting {
		s.setPhase(phaseUp)
	}
	s.mu.Unlock()
	took := s.now().Sub(diedAt)
	s.report(proxywire.Stdio{Kind: proxywire.StdioRestarted, Child: c.pid, Starts: starts, Took: took,
		Detail: fmt.Sprintf("%s: %s started again in %d ms (pid %d)", s.who(), s.name(), took.Milliseconds(), c.pid)})
	s.errOut.note("%s started again in %d ms (pid %d)", s.name(), took.Milliseconds(), c.pid)
	if changed != "" {
		s.report(proxywire.Stdio{Kind: proxywire.StdioChanged, Child: c.pid, Detail: s.who() + ": " + s.name() + " came back " + changed})
		s.errOut.note("%s came back %s", s.name(), changed)
	}
	s.tellListsChanged(answer)
}

// notStarted: the next run could not be started at all; it counts as
// one more exit.
func (s *Supervisor) notStarted(err error) {
	s.errOut.note("%s: %v", s.name(), err)
	c := &child{status: err.Error(), handled: make(chan struct{}), cmd: nil}
	s.mu.Lock()
	s.gen++
	c.gen = s.gen
	s.cur = c
	s.mu.Unlock()
	s.died(c)
}

// sleep waits d unless the host goes first.
func (s *Supervisor) sleep(d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-s.stopped:
		return false
	}
}

// sendAgain sends run c the kept calls that may be sent again, oldest
// first, each recorded where it is written in c's input as toServer
// records a call (a second death judges it by c's reading, not the
// first run's).
func (s *Supervisor) sendAgain(c *child) {
	s.mu.Lock()
	var kept []*call
	for _, cl := range s.calls {
		if cl.again && cl.line != nil && cl.gen < c.gen {
			kept = append(kept, cl)
		}
	}
	sort.Slice(kept, func(i, j int) bool { return kept[i].at.Before(kept[j].at) })
	if len(kept) > 0 {
		s.armHang()
	}
	s.mu.Unlock()
	for _, cl := range kept {
		c.inMu.Lock()
		s.mu.Lock()
		cl.gen, cl.start = c.gen, c.written
		line := append(bytes.Clone(cl.line), '\n')
		s.mu.Unlock()
		err := c.writeLocked(line)
		c.inMu.Unlock()
		if err != nil {
			return // its death comes through reap, and judges what was written
		}
	}
}
