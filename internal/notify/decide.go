package notify

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/durfmt"
	"github.com/mcpwatchdog/watchdog/internal/health"
)

// incident is one open loss on a server, as far as notifications go.
type incident struct {
	since      time.Time
	told       bool      // something about it was shown: its end is worth telling
	lastSent   time.Time // loss or last reminder, for the reminder clock
	doing      string    // what the watchdog is doing about it
	failedSaid bool      // its heal failure was shown (or paused): once per incident
	advice     string    // the latest heal failure's detail, for the reminders
	// healedIn: it recovered (in this long) while its loss was held for a
	// storm's summary; the summary still tells it, as recovered.
	healedIn time.Duration
	healed   bool
	thread   string // its bubbles' Message.Thread
	key      incidentKey
}

// incidentKey names an incident: a server, and the host whose session
// there was lost ("" in lines written before events named their host).
type incidentKey struct{ server, host string }

// hostOf is the host an event names ("" when none).
func hostOf(ev health.Event) string {
	h, _ := ev.Extra["host"].(string)
	return h
}

// healFailedQuiet spaces heal failures outside an incident (a manual heal
// with nothing lost): at most one bubble per server this often.
const healFailedQuiet = time.Hour

// state is the pure decision state. Not safe for concurrent use.
type state struct {
	incidents map[incidentKey]*incident
	// stdioIncidents: each stdio server's run of deaths (stdio.go).
	stdioIncidents map[incidentKey]*stdioIncident
	warned         marks                // sessions warned at risk: once each
	failedAt       map[string]time.Time // by server: last heal failure outside an incident
	unplaced       time.Time            // last loss shown that named no server
	folds          map[string]*fold     // by the About of the bubbles they fold
	window         time.Duration        // stormWindow; shorter in tests
	solo           int                  // stormSolo
	budget         budget               // bubbles decided in the last hour
	// masked: events carry masked session ids (a journal replay), not
	// the full ids of live events.
	masked bool
	// nameHosts: several hosts are watched, so titles name the host.
	nameHosts bool
}

// incident is the open incident of server and host; an event that names a
// host also finds one opened by a line that named none.
func (s *state) incident(server, host string) *incident {
	if inc := s.incidents[incidentKey{server, host}]; inc != nil || host == "" {
		return inc
	}
	return s.incidents[incidentKey{server, ""}]
}

// subject is what a title names: the server, and the host when several
// are watched.
func (s *state) subject(server, host string) string {
	if s.nameHosts && host != "" {
		return server + " (" + host + ")"
	}
	return server
}

func newState() state {
	s := state{incidents: map[incidentKey]*incident{}, stdioIncidents: map[incidentKey]*stdioIncident{}, warned: newMarks(), failedAt: map[string]time.Time{},
		folds: map[string]*fold{}, window: stormWindow, solo: stormSolo}
	for _, k := range foldKinds() {
		s.folds[k.about] = &fold{}
	}
	return s
}

// observe updates the state with ev and returns what to say (nothing when
// quiet, but the state moves on all the same): the summaries of storms
// that ended by now, then ev's own bubble unless its storm holds it.
func (s *state) observe(ev health.Event, now time.Time, quiet bool) []Message {
	out := s.flush(now, quiet, false)
	m := s.decide(ev, now)
	if m == nil || quiet || !s.admit(*m, now) {
		return s.spent(now, out)
	}
	if inc := s.incident(ev.Server, hostOf(ev)); inc != nil {
		inc.told, inc.lastSent = true, now
	}
	return s.spent(now, append(out, *m))
}

// decide moves the state on with ev and returns the bubble it is worth,
// if any.
func (s *state) decide(ev health.Event, now time.Time) *Message {
	if m, ok := s.stdio(ev, now); ok {
		if now.Sub(ev.Time) > redeliverWithin {
			return nil // a supervisor's backlog of long ago: the journal's news, not a bubble's
		}
		return m
	}
	switch ev.Kind {
	case health.EvSessionLost:
		return s.lost(ev, now)
	case health.EvHealStarted:
		if inc := s.incident(ev.Server, hostOf(ev)); inc != nil {
			a, _ := ev.Facts.(health.Attempt)
			inc.doing = "healing: " + strategyName(a.Strategy)
		}
	case health.EvRecovered:
		return s.recovered(ev)
	case health.EvHealFailed:
		return s.healFailed(ev, now)
	case health.EvSessionAtRisk:
		return s.sessionAtRisk(ev, now)
	case health.EvSessionExpired, health.EvSessionEnded:
		s.warned.forget(ev.Server, ev.Session, s.masked)
	case health.EvHostAdopted, health.EvHostReleased:
		return adopted(ev)
	case health.EvWarning:
		if how, _ := ev.Extra[ProtectKey].(string); how != "" {
			name, _ := ev.Extra["host"].(string)
			return &Message{Title: "Protecting " + name + ": " + how, Body: ev.Detail, About: AboutAdopted}
		}
	}
	return nil
}

// adopted tells the outcome of routing a host through the proxy (the
// tray's Protect): its title names the host, its body what changed and
// whether the host must be restarted.
func adopted(ev health.Event) *Message {
	name, _ := ev.Extra["host"].(string)
	title := name + " is protected: its servers go through the watchdog's proxy"
	if ev.Kind == health.EvHostReleased {
		title = name + " is released: its servers' own URLs are back"
	}
	return &Message{Title: title, Body: ev.Detail, About: AboutAdopted}
}

func (s *state) lost(ev health.Event, now time.Time) *Message {
	s.warned.forget(ev.Server, ev.Session, s.masked)
	if ev.Server == "" {
		return s.lostUnplaced(ev, now)
	}
	if l, _ := ev.Facts.(health.Loss); !l.Incident {
		return nil // another client's session: journaled, not the user's incident
	}
	host := hostOf(ev)
	if s.incident(ev.Server, host) != nil {
		return nil // one incident, one notification
	}
	key := incidentKey{ev.Server, host}
	inc := &incident{since: now, lastSent: now, doing: "waiting for the host to reconnect", key: key,
		thread: Thread(ev.Server, ev.Time)}
	s.incidents[key] = inc
	return &Message{Title: s.subject(ev.Server, host) + lostSuffix, Body: ev.Detail,
		Server: ev.Server, Host: host, About: AboutLost, Thread: inc.thread}
}

// Thread names the incident a loss of server at lost opens: its bubbles'
// Message.Thread, and what the journal's notified records say they told.
// It is made of the loss event's own fields, so a replay of the journal
// (which keeps times to the nanosecond) names it alike.
func Thread(server string, lost time.Time) string {
	return server + "@" + strconv.FormatInt(lost.UnixNano(), 10)
}

// unplacedQuiet: a host that keeps logging losses it names no server for
// is told about once per this long; the journal has every line.
const unplacedQuiet = 10 * time.Minute

// lostUnplaced tells of a loss the host's log reported without naming a
// server: the event's detail names the host and what it said.
func (s *state) lostUnplaced(ev health.Event, now time.Time) *Message {
	if !s.unplaced.IsZero() && now.Sub(s.unplaced) < unplacedQuiet {
		return nil
	}
	s.unplaced = now
	return &Message{Title: "MCP session lost (no server named)", Body: ev.Detail, About: AboutLostUnplaced}
}

func (s *state) recovered(ev health.Event) *Message {
	host, r := hostOf(ev), recoveryOf(ev)
	inc := s.incident(ev.Server, host)
	if inc != nil {
		delete(s.incidents, inc.key)
	}
	if inc != nil && !inc.told {
		// Never shown: paused (its end is no news), or held for a storm's
		// summary, which will say it recovered.
		inc.healed, inc.healedIn = true, r.Took
		return nil
	}
	title := s.subject(ev.Server, host) + " recovered"
	if r.Took > 0 {
		title += " in " + durfmt.Short(r.Took)
	}
	m := &Message{Title: title, Body: ev.Detail, Server: ev.Server, Host: host, About: AboutRecovered}
	if inc != nil {
		m.Thread = inc.thread
	}
	return m
}

// healFailed shows an incident's first heal failure only: later ones
// (whatever their words) are the same news, and the reminders carry the
// latest advice. A failure outside an incident is shown once an hour.
func (s *state) healFailed(ev health.Event, now time.Time) *Message {
	thread, host := "", hostOf(ev)
	if inc := s.incident(ev.Server, host); inc != nil {
		inc.doing, inc.advice = "doing nothing more on its own", ev.Detail
		if inc.failedSaid {
			return nil
		}
		inc.failedSaid, thread = true, inc.thread
	} else {
		if last, ok := s.failedAt[ev.Server]; ok && now.Sub(last) < healFailedQuiet {
			return nil
		}
		s.failedAt[ev.Server] = now
	}
	return &Message{Title: s.subject(ev.Server, host) + ": healing failed", Body: ev.Detail, Server: ev.Server, Host: host,
		About: AboutHealFailed, Thread: thread}
}

// sessionAtRisk warns once per session, however often it idles again:
// a second bubble about the same session tells nothing new. No warning
// once the loss is known, nor in the last tick before expiry: the loss is
// the news then.
func (s *state) sessionAtRisk(ev health.Event, now time.Time) *Message {
	host := hostOf(ev)
	if s.incident(ev.Server, host) != nil || riskOf(ev).ExpiresIn < atRiskTooLate {
		return nil
	}
	if !s.warned.add(ev.Server, ev.Session, s.masked, now) {
		return nil
	}
	return &Message{Title: s.subject(ev.Server, host) + ": session at risk", Body: ev.Detail, Server: ev.Server, Host: host,
		About: AboutAtRisk}
}

// due returns what is due by now without an event: the summaries of
// storms that ended, and the reminders.
func (s *state) due(now time.Time, every time.Duration, quiet bool) []Message {
	out := append(s.flush(now, quiet, false), s.reminders(now, every, quiet)...)
	return s.spent(now, append(out, s.stdioDue(now, quiet)...))
}

// reminders says "still lost" for each incident quiet for a whole interval.
func (s *state) reminders(now time.Time, every time.Duration, quiet bool) []Message {
	if quiet {
		return nil
	}
	var out []Message
	keys := slices.SortedFunc(maps.Keys(s.incidents), func(a, b incidentKey) int {
		return cmp.Or(cmp.Compare(a.server, b.server), cmp.Compare(a.host, b.host))
	})
	for _, key := range keys {
		inc := s.incidents[key]
		if now.Sub(inc.lastSent) < every {
			continue
		}
		inc.told, inc.lastSent = true, now
		body := fmt.Sprintf("Lost for %s; the watchdog is %s.", durfmt.Short(now.Sub(inc.since)), inc.doing)
		if inc.advice != "" {
			body += " Healing failed: " + inc.advice
		}
		out = append(out, Message{Title: s.subject(key.server, key.host) + ": session still lost", Server: key.server, Host: key.host,
			About: AboutReminder, Body: body, Thread: inc.thread})
	}
	return out
}

func strategyName(s health.Strategy) string {
	if s == "" {
		return "unknown strategy"
	}
	return string(s)
}

func recoveryOf(ev health.Event) health.Recovery {
	r, _ := ev.Facts.(health.Recovery)
	return r
}

func riskOf(ev health.Event) health.Risk {
	r, _ := ev.Facts.(health.Risk)
	return r
}
