package health

import (
	"fmt"
	"maps"
	"strings"
	"time"
)

// AskedSession begins the made-up session ids the watchdog's liveness
// check asks a server about (how it says a session is gone): a server's
// log line about one is the question's echo, never a loss.
const AskedSession = "mcp-watchdog-check-"

// askEcho: the first server-log loss naming no session this close to the
// watchdog's question (Asking) is taken for its echo, not the host's loss:
// a line naming none cannot be told apart. One line at most, once per
// question: a second line, the store and the next loss still tell a real
// loss in that moment.
const askEcho = 2 * time.Second

// askEcho reports whether sig is the echo of the last question, and uses
// it up.
func (s *server) askEcho(sig SessionLost, now time.Time) bool {
	if sig.Session != "" || sig.HostLog || !s.asked.echoLeft || now.Sub(s.asked.at).Abs() >= askEcho {
		return false
	}
	s.asked.echoLeft = false
	return true
}

// Asking notes that the watchdog is asking server about a made-up
// session now (the liveness check's question; its answer comes later as
// a LivenessAnswered with its Answer).
func (m *Model) Asking(server string, now time.Time) {
	if s, ok := m.servers[server]; ok {
		s.asked.at, s.asked.echoLeft = now, true
	}
}

// open starts an incident unless one is open: one loss, one event. A loss
// told again while it is open is counted into it (lostAgain).
func (s *server) open(now time.Time, sessionID, detail string) []Event {
	if s.incident != nil {
		s.lostAgain(now)
		return nil
	}
	if s.flap.opened(now) {
		return s.openFlapping(now, sessionID, detail)
	}
	s.incident = &incident{since: now, session: sessionID, hostPID: s.hostPID()}
	return []Event{{Time: now, Kind: EvSessionLost, Server: s.cfg.Name, Session: sessionID, Detail: detail,
		Facts: Loss{Incident: true}, Extra: s.lossExtra()}}
}

// hostPID is the running host's pid, 0 when none is known to run.
func (s *server) hostPID() int32 {
	if s.words == nil || !s.words.host.running {
		return 0
	}
	return s.words.host.pid
}

// recover closes the open incident, if any, with how long it lasted; a
// flapping one only counts the recovery (see flap).
// newSession is the session the host uses now ("" when not known); callers
// have made sure it differs from the lost one and that the server has it.
func (s *server) recover(now time.Time, how, newSession string) []Event {
	if s.incident == nil {
		return nil
	}
	if s.flap.on {
		s.flapHealed(now)
		return nil
	}
	return s.closeIncident(now, now, how, newSession, nil)
}

// closeIncident journals the end of the open incident at now, the session
// having come back at healed; extra adds to the event's fields.
func (s *server) closeIncident(now, healed time.Time, how, newSession string, extra map[string]any) []Event {
	in := s.incident
	took := healed.Sub(in.since)
	strategy := in.healing
	if strategy == "" {
		strategy = StrategyReconnect
	}
	s.incident = nil
	if in.repeats > 0 {
		extra = withExtra(extra, map[string]any{"loss_reports": in.repeats + 1,
			"last_loss_report": in.lastRepeat.UTC().Format(time.RFC3339Nano)})
	}
	return []Event{{Time: now, Kind: EvRecovered, Server: s.cfg.Name, Session: in.session, Extra: extra,
		Facts:  Recovery{NewSession: newSession, Took: took.Truncate(time.Millisecond), Strategy: strategy},
		Detail: fmt.Sprintf("%s recovered after %s: %s", s.cfg.Name, took.Round(time.Millisecond), how)}}
}

// withExtra adds add's fields to extra, making it when nil.
func withExtra(extra, add map[string]any) map[string]any {
	if extra == nil {
		extra = make(map[string]any, len(add))
	}
	maps.Copy(extra, add)
	return extra
}

// reconnected: a log line says the client reconnected, so the host
// demonstrably holds a working session again.
func (m *Model) reconnected(s *server, sig Reconnected, now time.Time) []Event {
	if s.incident == nil {
		return nil
	}
	next := ""
	if cur := m.currentSession(s); cur != nil && s.incident.differs(cur.id, cur.created) {
		next = cur.id
	}
	return s.recover(now, "the client reconnected ("+sig.Detail+")", next)
}

// logLost handles a log line saying a session is gone. A line naming a
// session of another client concerns only that session; anything else
// is the host's loss on this server.
func (m *Model) logLost(s *server, sig SessionLost, now time.Time) []Event {
	if s.cfg.ProxyURL != "" {
		return nil // the proxy met the same loss on the host's call and says so itself
	}
	if _, old := s.store.gone[sig.Session]; old && sig.Session != "" {
		return nil // that session's end was already judged
	}
	if strings.HasPrefix(sig.Session, AskedSession) || s.askEcho(sig, now) {
		return nil // the server logging the made-up session the watchdog asks about
	}
	if _, known := s.sessions[sig.Session]; !known && s.viaProxySession(sig.Session) {
		return nil // the proxy's, unseen in any store: the proxy meets its loss itself
	}
	curID := m.currentID(s)
	if _, known := s.sessions[sig.Session]; !known && !m.hostRunning() && !sig.HostLog {
		return nil // no host runs to meet it: an old session's last words
	}
	if sig.Session != "" && curID != "" && curID != sig.Session {
		if sess, ok := s.sessions[sig.Session]; !ok || m.isHostClient(s, sess) {
			return nil // not the host's current session: nothing the user will meet
		}
	}
	if sess, ok := s.sessions[sig.Session]; ok && !m.isHostClient(s, sess) {
		delete(s.sessions, sess.id)
		s.remember(sess.id, now)
		return []Event{{Time: now, Kind: EvSessionLost, Server: s.cfg.Name, Session: sess.id,
			Facts:  Loss{Client: sess.client},
			Detail: fmt.Sprintf("a session of %s on %s is gone: %s", clientLabel(sess.client), s.cfg.Name, sig.Detail)}}
	}
	id := sig.Session
	if id == "" {
		id = curID
	}
	return s.open(now, id, fmt.Sprintf("session on %s lost: %s%s; %s", s.cfg.Name, sig.Detail, m.howHostSeen(sig), s.nextCall()))
}

// howHostSeen says, for a loss the host's own log reports, how the host was
// known to run: its log is its word even when no process was found.
func (m *Model) howHostSeen(sig SessionLost) string {
	if !sig.HostLog || m.hostRunning() {
		return ""
	}
	return fmt.Sprintf(" (in %s's own log; no %s process was found)", m.cfg.HostName, m.cfg.HostName)
}

// unattributedLost places a host-log loss that names no server: on the
// server the beacon shows failing, else on the only stateful server, else
// it is journaled against no server, never dropped.
func (m *Model) unattributedLost(sig SessionLost, now time.Time) []Event {
	if s := m.failingServer(); s != nil {
		return m.logLost(s, sig, now)
	}
	if s := m.onlyStateful(); s != nil {
		return m.logLost(s, sig, now)
	}
	u := &m.unplaced
	if u.detail == sig.Detail && now.Sub(u.at) < unplacedQuiet {
		u.repeats++ // a flood of one line is one event a minute
		return nil
	}
	ev := Event{Time: now, Kind: EvSessionLost, Session: sig.Session, Facts: Loss{},
		Detail: fmt.Sprintf("%s reports a lost MCP session but names no server: %s", m.cfg.HostName, sig.Detail)}
	if u.repeats > 0 {
		ev.Extra = map[string]any{"repeats_before": u.repeats}
		ev.Detail += fmt.Sprintf(" (the line before it came %d more times after it was journaled)", u.repeats)
	}
	*u = unplacedLoss{detail: sig.Detail, at: now}
	return []Event{ev}
}

// unplacedQuiet: the same host-log loss naming no server is journaled at
// most once within it; the repeats are counted into the next one.
const unplacedQuiet = time.Minute

// unplacedLoss is the last loss journaled against no server.
type unplacedLoss struct {
	detail  string
	at      time.Time
	repeats int // the same line since, not journaled
}

func (m *Model) failingServer() *server {
	for _, name := range m.order {
		if s := m.servers[name]; s.held != nil && !s.held.Connected {
			return s
		}
	}
	return nil
}

func (m *Model) onlyStateful() *server {
	var found *server
	for _, name := range m.order {
		s := m.servers[name]
		if s.mode() != Stateful {
			continue
		}
		if found != nil {
			return nil
		}
		found = s
	}
	return found
}

func (s *server) atRiskEvent(sess *session, now time.Time) Event {
	idle := s.idle(sess, now)
	left := max(s.timeout()-idle, 0)
	return Event{Time: now, Kind: EvSessionAtRisk, Server: s.cfg.Name, Session: sess.id,
		Facts:  Risk{Idle: idle.Truncate(time.Second), ExpiresIn: left.Truncate(time.Second)},
		Detail: fmt.Sprintf("the host's session on %s has been idle %s and expires in %s", s.cfg.Name, idle.Round(time.Second), left.Round(time.Second))}
}

// legacyRejected journals a refused legacy session header, at most once
// per legacyQuiet per server.
func (s *server) legacyRejected(sig LegacyHeaderRejected, now time.Time) []Event {
	const legacyQuiet = 10 * time.Minute
	if !s.lastLegacy.IsZero() && now.Sub(s.lastLegacy) < legacyQuiet {
		return nil
	}
	s.lastLegacy = now
	return []Event{{Time: now, Kind: EvLegacyHeaderRejected, Server: s.cfg.Name,
		Detail: fmt.Sprintf("%s rejected a legacy session header: %s", s.cfg.Name, sig.Detail)}}
}
