// Package timeline turns the journal into one self-contained HTML page a
// person can read: per server, each session as a bar from first seen to
// its end, keep-warm pings as ticks, incidents with detection and recovery
// times, heals, host restarts, and a summary on top. Build is pure (no I/O,
// no clock); Render writes the page.
package timeline

import (
	"slices"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/journal"
)

// Page is what the timeline shows of one window of the journal.
type Page struct {
	From, To  time.Time
	Summary   Summary
	Servers   []*Server
	Host      []Mark // host up, down, restarted; the watchdog's starts and stops
	Incidents []*Incident
}

// Summary is the line of figures on top of the page.
type Summary struct {
	Sessions, Expired, Incidents, Recovered int
	// MedianRecovery: of the incidents that recovered; 0 when none did.
	MedianRecovery time.Duration
	// KeptWarm: sessions pinged at least once. PastTimeout: of those, the
	// ones that lived longer than their server's idle timeout: expiries the
	// pings prevented, unless the host's own calls would have too.
	KeptWarm, PastTimeout int
}

// Server is one server's lane.
type Server struct {
	Name     string
	Timeout  time.Duration // as last announced or learned; 0: unknown
	Sessions []*Session
	Marks    []Mark // heals, server down and up
	Rows     int    // session bars are packed into this many rows
	// Others: sessions of clients other than the host's, summed in the
	// last row (Rows-1) when the lane also has the host's sessions, so
	// the host's own stay readable however many others come and go. 0:
	// every session has a bar of its own.
	Others int
}

// Session is one bar. ID is masked, as the journal has it.
type Session struct {
	ID, Client string
	From, To   time.Time
	Open       bool             // still tracked at the page's end
	End        health.EventKind // how it ended ("" while open)
	Idle       time.Duration    // idle when it ended, as journaled
	Pings      []time.Time
	Failed     []time.Time // pings that failed
	AtRisk     []time.Time
	Row        int
	// Host: the host's session, as the journal tells (kept warm, or its
	// loss an incident), or a session of the same client.
	Host bool
}

// Incident is one loss of the host's session: detected, healed, recovered.
type Incident struct {
	Server, Session, NewSession string
	Lost, Recovered             time.Time // Recovered zero: still open
	Took                        time.Duration
	Strategy                    string
	Heals                       []Mark
	Failed                      bool // a heal failed
	Detail                      string
}

// Mark is one moment on a lane.
type Mark struct {
	At       time.Time
	Kind     health.EventKind
	Strategy string
	Detail   string
}

// maxRows bounds a lane's height: past it, bars share the last row.
const maxRows = 24

// Build makes the page of the records between from and to (oldest first,
// as the journal reads back).
func Build(recs []journal.Record, from, to time.Time) Page {
	b := builder{page: Page{From: from, To: to}, servers: map[string]*Server{},
		open: map[string]*Session{}, ended: map[string]*Session{}, incident: map[string]*Incident{}}
	for _, rec := range recs {
		if rec.Time.Before(from) || rec.Time.After(to) {
			continue
		}
		b.apply(rec)
	}
	for _, sess := range b.open {
		sess.To, sess.Open = to, true
	}
	// A bar is drawn at least minMark wide: pack with that much of
	// the window (and a pixel's gap) so short bars never overlap.
	least := time.Duration(float64(to.Sub(from)) * (minMark + 1) / chartWidth)
	for _, s := range b.page.Servers {
		layout(s, least)
	}
	b.page.Summary = summarize(b.page)
	return b.page
}

type builder struct {
	page     Page
	servers  map[string]*Server
	open     map[string]*Session  // server + "\x00" + masked id
	ended    map[string]*Session  // the last bar that ended, by the same key
	incident map[string]*Incident // server → its open incident
}

func (b *builder) apply(rec journal.Record) {
	switch rec.Kind {
	case health.EvHostUp, health.EvHostDown, health.EvHostRestarted, health.EvStarted, health.EvStopped:
		b.page.Host = append(b.page.Host, mark(rec))
	case health.EvServerMode, health.EvTimeoutLearned:
		if secs, ok := rec.Extra["idle_timeout_seconds"].(float64); ok && rec.Server != "" {
			b.server(rec.Server).Timeout = time.Duration(secs * float64(time.Second))
		}
	case health.EvServerDown, health.EvServerUp, health.EvStdioExited, health.EvStdioRestarted, health.EvStdioCallFailed,
		health.EvStdioGaveUp, health.EvStdioHung, health.EvStdioChanged:
		if rec.Server != "" {
			s := b.server(rec.Server)
			s.Marks = append(s.Marks, mark(rec))
		}
	case health.EvHealStarted, health.EvHealFailed:
		b.heal(rec)
	case health.EvRecovered:
		b.recovered(rec)
	default:
		b.sessionEvent(rec)
	}
}

// sessionEvent places a record about one session on its bar.
func (b *builder) sessionEvent(rec journal.Record) {
	if rec.Server == "" || rec.Session == "" {
		return
	}
	switch rec.Kind {
	case health.EvSessionNew, health.EvKeepWarm, health.EvKeepWarmFailed, health.EvSessionAtRisk,
		health.EvSessionExpired, health.EvSessionEnded, health.EvSessionLost:
	default:
		return
	}
	sess := b.session(rec)
	switch rec.Kind {
	case health.EvKeepWarm:
		sess.Pings, sess.Host = append(sess.Pings, rec.Time), true
	case health.EvKeepWarmFailed:
		sess.Failed, sess.Host = append(sess.Failed, rec.Time), true
	case health.EvSessionAtRisk:
		sess.AtRisk = append(sess.AtRisk, rec.Time)
	case health.EvSessionExpired, health.EvSessionEnded, health.EvSessionLost:
		b.end(sess, rec)
	}
	if l, _ := rec.Facts.(health.Loss); rec.Kind == health.EvSessionLost && l.Incident {
		sess.Host = true
		b.lost(rec)
	}
}

// session is the open bar rec is about; else, but for a session_new, the
// bar that last ended with its id (a loss journaled beside its expiry, a
// ping answered after the end); else a new bar from rec on.
func (b *builder) session(rec journal.Record) *Session {
	key := rec.Server + "\x00" + rec.Session
	sess, ok := b.open[key]
	if !ok && rec.Kind != health.EvSessionNew {
		sess, ok = b.ended[key]
	}
	if ok {
		if sess.Client == "" {
			sess.Client = health.ClientOf(rec.Facts)
		}
		return sess
	}
	sess = &Session{ID: rec.Session, Client: health.ClientOf(rec.Facts), From: rec.Time}
	s := b.server(rec.Server)
	s.Sessions = append(s.Sessions, sess)
	b.open[key] = sess
	return sess
}

// end closes a bar at its first end (an expiry and the incident's loss of
// the same session come together: the bar keeps the first).
func (b *builder) end(sess *Session, rec journal.Record) {
	key := rec.Server + "\x00" + rec.Session
	if _, open := b.open[key]; !open {
		return
	}
	delete(b.open, key)
	b.ended[key] = sess
	e, _ := rec.Facts.(health.Ended)
	sess.To, sess.End, sess.Idle = rec.Time, rec.Kind, e.Idle
}

func (b *builder) lost(rec journal.Record) {
	inc := &Incident{Server: rec.Server, Session: rec.Session, Lost: rec.Time, Detail: rec.Detail}
	b.incident[rec.Server] = inc
	b.page.Incidents = append(b.page.Incidents, inc)
}

func (b *builder) heal(rec journal.Record) {
	m := mark(rec)
	if rec.Server == "" {
		b.page.Host = append(b.page.Host, m)
		return
	}
	s := b.server(rec.Server)
	s.Marks = append(s.Marks, m)
	if inc := b.incident[rec.Server]; inc != nil {
		inc.Heals = append(inc.Heals, m)
		inc.Failed = inc.Failed || rec.Kind == health.EvHealFailed
	}
}

func (b *builder) recovered(rec journal.Record) {
	inc := b.incident[rec.Server]
	if inc == nil {
		return // its loss is before the window
	}
	delete(b.incident, rec.Server)
	r, _ := rec.Facts.(health.Recovery)
	inc.Recovered, inc.Took, inc.Strategy = rec.Time, r.Took, string(r.Strategy)
	if inc.Took <= 0 {
		inc.Took = rec.Time.Sub(inc.Lost)
	}
	inc.NewSession = r.NewSession
}

func (b *builder) server(name string) *Server {
	if s, ok := b.servers[name]; ok {
		return s
	}
	s := &Server{Name: name}
	b.servers[name] = s
	b.page.Servers = append(b.page.Servers, s)
	return s
}

func mark(rec journal.Record) Mark {
	return Mark{At: rec.Time, Kind: rec.Kind, Strategy: string(health.StrategyOf(rec.Facts)), Detail: rec.Detail}
}

// layout gives the host's sessions rows of their own and, when there
// are any, sums the other clients' sessions in one row below them.
func layout(s *Server, least time.Duration) {
	hostClients := map[string]bool{}
	for _, sess := range s.Sessions {
		if sess.Host && sess.Client != "" {
			hostClients[sess.Client] = true
		}
	}
	var host, others []*Session
	for _, sess := range s.Sessions {
		sess.Host = sess.Host || hostClients[sess.Client]
		if sess.Host {
			host = append(host, sess)
		} else {
			others = append(others, sess)
		}
	}
	if len(host) == 0 || len(others) == 0 {
		s.Rows = pack(s.Sessions, least)
		return
	}
	s.Rows = pack(host, least) + 1
	s.Others = len(others)
	for _, sess := range others {
		sess.Row = s.Rows - 1
	}
}

// pack gives each bar the first row free at its start, a bar taking at
// least the given time, and returns the rows used.
func pack(sessions []*Session, least time.Duration) int {
	var ends []time.Time // per row, where its last bar ends
	for _, sess := range sessions {
		row := slices.IndexFunc(ends, func(end time.Time) bool { return end.Before(sess.From) })
		switch {
		case row >= 0:
		case len(ends) < maxRows:
			row = len(ends)
			ends = append(ends, time.Time{})
		default:
			row = maxRows - 1
		}
		sess.Row = row
		end := sess.To
		if least := sess.From.Add(least); least.After(end) {
			end = least
		}
		if end.After(ends[row]) {
			ends[row] = end
		}
	}
	return max(len(ends), 1)
}

func summarize(p Page) Summary {
	var sum Summary
	var took []time.Duration
	for _, s := range p.Servers {
		for _, sess := range s.Sessions {
			sum.Sessions++
			if sess.End == health.EvSessionExpired {
				sum.Expired++
			}
			if len(sess.Pings) > 0 {
				sum.KeptWarm++
				if s.Timeout > 0 && sess.To.Sub(sess.From) > s.Timeout {
					sum.PastTimeout++
				}
			}
		}
	}
	for _, inc := range p.Incidents {
		sum.Incidents++
		if !inc.Recovered.IsZero() {
			sum.Recovered++
			took = append(took, inc.Took)
		}
	}
	if len(took) > 0 {
		slices.Sort(took)
		sum.MedianRecovery = took[len(took)/2]
	}
	return sum
}
