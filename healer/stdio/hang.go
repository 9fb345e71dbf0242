package stdio

import (
	"fmt"
	"syscall"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/proxywire"
)

// hangState is the one check armed while a request is in flight: a
// supervisor with nothing in flight runs no timer at all.
type hangState struct {
	timer *time.Timer
	said  int // the run whose hang was said: once a run
}

// armHang arms the check HangAfter from now, unless one is armed. s.mu held.
func (s *Supervisor) armHang() { s.armHangIn(s.lim.HangAfter) }

func (s *Supervisor) armHangIn(d time.Duration) {
	if s.hang.timer != nil || s.phase == phaseClosing {
		return
	}
	s.wg.Add(1)
	s.hang.timer = time.AfterFunc(d, func() {
		defer s.wg.Done()
		s.checkHang()
	})
}

// stop disarms the check. s.mu held.
func (s *Supervisor) stopHang() {
	if s.hang.timer != nil && s.hang.timer.Stop() {
		s.wg.Done()
	}
	s.hang.timer = nil
}

// checkHang pings a run that has left a request unanswered HangAfter; a
// run that answers neither is said to hang, and killed (to be started
// again) only where Options.RestartHung asks for it.
func (s *Supervisor) checkHang() {
	s.mu.Lock()
	s.hang.timer = nil
	c, method, age := s.oldestCall()
	switch {
	case c == nil:
		s.mu.Unlock()
		return
	case age < s.lim.HangAfter || s.hang.said == c.gen:
		s.armHangIn(max(s.lim.HangAfter-age, s.lim.HangAfter/4))
		s.mu.Unlock()
		return
	}
	s.mu.Unlock()
	_, err := s.ask(c, []byte(`{"jsonrpc":"2.0","id":0,"method":"ping"}`), "ping", s.lim.PingWait)
	s.mu.Lock()
	if err == nil || s.cur != c || s.phase != phaseUp {
		s.armHang() // busy, not hung: looked at again while calls are in flight
		s.mu.Unlock()
		return
	}
	s.hang.said = c.gen
	s.mu.Unlock()
	what := "it is left running"
	if s.opt.RestartHung {
		what = "it is being started again"
	}
	detail := fmt.Sprintf("%s: %s has not answered a %s call for %s nor a ping for %s: it hangs; %s",
		s.who(), s.name(), method, age.Round(10*time.Millisecond), s.lim.PingWait, what)
	s.report(proxywire.Stdio{Kind: proxywire.StdioHung, Child: c.pid, Method: method, Detail: detail})
	s.errOut.note("%s", detail)
	if s.opt.RestartHung {
		c.signal(syscall.SIGKILL)
	}
}

// oldestCall is the current run, the method of its oldest call in flight
// and that call's age; a nil run when there is none. s.mu held.
func (s *Supervisor) oldestCall() (*child, string, time.Duration) {
	c := s.cur
	if c == nil || s.phase != phaseUp {
		return nil, "", 0
	}
	var oldest *call
	for _, cl := range s.calls {
		if cl.gen == c.gen && (oldest == nil || cl.at.Before(oldest.at)) {
			oldest = cl
		}
	}
	if oldest == nil {
		return nil, "", 0
	}
	return c, oldest.method, s.now().Sub(oldest.at)
}

// notReading answers a request the server did not read within WriteWait
// and says the server hangs (once a run).
func (s *Supervisor) notReading(c *child, f fields) {
	if f.Request() {
		s.fail(f.ID, &callError{reason: "not_reading", words: fmt.Sprintf(
			"the MCP server %q has read nothing of its input for %s: it hangs, and this request did not reach it", s.name(), s.lim.WriteWait)})
	}
	s.mu.Lock()
	said := s.hang.said == c.gen
	s.hang.said = c.gen
	s.mu.Unlock()
	if said {
		return
	}
	detail := fmt.Sprintf("%s: %s has read nothing of its input for %s: it hangs", s.who(), s.name(), s.lim.WriteWait)
	s.report(proxywire.Stdio{Kind: proxywire.StdioHung, Child: c.pid, Method: f.Method, Detail: detail})
	s.errOut.note("%s", detail)
	if s.opt.RestartHung {
		c.signal(syscall.SIGKILL)
	}
}
