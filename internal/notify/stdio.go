package notify

import (
	"cmp"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/health"
)

// What a stdio server's bubble is about (Message.About): it crashed (and
// was restarted, or not yet), kept crashing until the watchdog stopped
// restarting it, or stopped answering.
const (
	AboutStdioCrashed = "stdio_crashed"
	AboutStdioGaveUp  = "stdio_gave_up"
	AboutStdioHung    = "stdio_hung"
)

const (
	// StdioIncidentGap: a stdio server's exits closer than this to the
	// one before are one incident, told once (the supervisor's crash-loop
	// window); its give-up is told in the same thread.
	StdioIncidentGap = time.Minute
	// stdioRestartWait is how long a crash waits for its restart, to be
	// told with it in one bubble; past it, the crash is told alone.
	stdioRestartWait = 5 * time.Second
)

// stdioIncident is one stdio server's run of deaths, as far as bubbles go.
type stdioIncident struct {
	thread string
	last   time.Time // its last exit (event time)
	// crash: the exit waiting for its restart (nil: none), held since
	// heldAt (the notifier's clock).
	crash  *health.Event
	heldAt time.Time
	said   bool // its crash was told: later exits in it are quiet
	gaveUp bool // its give-up was told
	hung   bool // a hang was told and no restart or exit came since
}

// stdioSubject names a stdio server in a title: "opencode: filesystem".
func stdioSubject(server, host string) string {
	if host == "" {
		return server
	}
	return host + ": " + server
}

// stdio moves the stdio incidents on with ev and returns its bubble, if
// any; ok is false for an event that is not a stdio server's.
func (s *state) stdio(ev health.Event, now time.Time) (m *Message, ok bool) {
	key := incidentKey{ev.Server, hostOf(ev)}
	inc := s.stdioIncidents[key]
	switch ev.Kind {
	case health.EvStdioExited:
		if inc == nil || ev.Time.Sub(inc.last) > StdioIncidentGap {
			inc = &stdioIncident{thread: Thread(stdioSubject(key.server, key.host), ev.Time)}
			s.stdioIncidents[key] = inc
		}
		inc.last, inc.hung = ev.Time, false
		if !inc.said && !inc.gaveUp {
			crash := ev
			inc.crash, inc.heldAt = &crash, now
		}
	case health.EvStdioRestarted:
		if inc == nil {
			return nil, true
		}
		inc.hung = false
		if inc.crash == nil {
			return nil, true
		}
		body := ev.Detail + stderrOf(inc)
		inc.crash, inc.said = nil, true
		return s.stdioBubble(key, inc, AboutStdioCrashed, " crashed, restarted"+tookIn(ev), body), true
	case health.EvStdioGaveUp:
		if inc == nil {
			inc = &stdioIncident{thread: Thread(stdioSubject(key.server, key.host), ev.Time), last: ev.Time}
			s.stdioIncidents[key] = inc
		}
		if inc.gaveUp {
			return nil, true
		}
		inc.crash, inc.gaveUp, inc.said = nil, true, true
		title := " keeps crashing; the watchdog stopped restarting it"
		if f, _ := ev.Facts.(health.Supervised); f.Stderr != "" {
			title += ": " + f.Stderr
		}
		return s.stdioBubble(key, inc, AboutStdioGaveUp, title, ev.Detail), true
	case health.EvStdioHung:
		if inc == nil {
			inc = &stdioIncident{thread: Thread(stdioSubject(key.server, key.host), ev.Time)}
			s.stdioIncidents[key] = inc
		}
		if inc.hung {
			return nil, true
		}
		inc.hung = true
		return s.stdioBubble(key, inc, AboutStdioHung, " is not answering", ev.Detail), true
	case health.EvStdioCallFailed, health.EvStdioChanged:
		return nil, true // the restart's bubble names the failed call; a change is the journal's
	default:
		return nil, false
	}
	return nil, true
}

func (s *state) stdioBubble(key incidentKey, inc *stdioIncident, about, title, body string) *Message {
	return &Message{Title: stdioSubject(key.server, key.host) + title, Body: body, Server: key.server, Host: key.host,
		About: about, Thread: inc.thread}
}

// tookIn is " in 120ms" when the restart says how long it took.
func tookIn(ev health.Event) string {
	if f, _ := ev.Facts.(health.Supervised); f.Took > 0 {
		return " in " + shortTook(f.Took)
	}
	return ""
}

func shortTook(d time.Duration) string {
	if d < time.Second {
		return strconv.FormatInt(d.Milliseconds(), 10) + " ms"
	}
	return d.Round(100 * time.Millisecond).String()
}

// stderrOf is the held crash's last stderr line, as a sentence to add.
func stderrOf(inc *stdioIncident) string {
	if inc.crash == nil {
		return ""
	}
	if f, _ := inc.crash.Facts.(health.Supervised); f.Stderr != "" {
		return ". Its last words on stderr: " + f.Stderr
	}
	return ""
}

// stdioDue tells the crashes that waited stdioRestartWait for a restart
// that did not come, each alone (when quiet, they are dropped unsaid).
func (s *state) stdioDue(now time.Time, quiet bool) []Message {
	var out []Message
	keys := slices.SortedFunc(maps.Keys(s.stdioIncidents), func(a, b incidentKey) int {
		return cmp.Or(cmp.Compare(a.server, b.server), cmp.Compare(a.host, b.host))
	})
	for _, key := range keys {
		inc := s.stdioIncidents[key]
		if inc.crash == nil || now.Sub(inc.heldAt) < stdioRestartWait {
			continue
		}
		body, old := inc.crash.Detail, now.Sub(inc.crash.Time) > redeliverWithin
		inc.crash, inc.said = nil, true
		if !quiet && !old {
			out = append(out, *s.stdioBubble(key, inc, AboutStdioCrashed, " crashed", body))
		}
	}
	return out
}

// stdioNext is when the next held crash is due, if one is held.
func (s *state) stdioNext() (time.Time, bool) {
	var next time.Time
	for _, inc := range s.stdioIncidents {
		if inc.crash == nil {
			continue
		}
		if due := inc.heldAt.Add(stdioRestartWait); next.IsZero() || due.Before(next) {
			next = due
		}
	}
	return next, !next.IsZero()
}

// stdioRestored forgets the crashes a journal replay left waiting: the
// run that journaled them owed their bubble, and it is old news now.
func (s *state) stdioRestored() {
	for _, inc := range s.stdioIncidents {
		inc.crash = nil
	}
}
