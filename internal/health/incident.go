package health

import (
	"fmt"
	"time"
)

// open starts an incident unless one is open: one loss, one event.
func (s *server) open(now time.Time, sessionID, detail string) []Event {
	if s.incident != nil {
		return nil
	}
	s.incident = &incident{since: now, session: sessionID}
	return []Event{{Time: now, Kind: EvSessionLost, Server: s.cfg.Name, Session: sessionID, Detail: detail,
		Incident: true}}
}

// recover closes the open incident, if any, with how long it lasted.
func (s *server) recover(now time.Time, how string) []Event {
	if s.incident == nil {
		return nil
	}
	took := now.Sub(s.incident.since)
	id, strategy := s.incident.session, s.incident.healing
	if strategy == "" {
		strategy = StrategyReconnect
	}
	s.incident = nil
	return []Event{{Time: now, Kind: EvRecovered, Server: s.cfg.Name, Session: id,
		Took: took.Truncate(time.Millisecond), Strategy: strategy,
		Detail: fmt.Sprintf("%s recovered after %s: %s", s.cfg.Name, took.Round(time.Millisecond), how)}}
}

// logLost handles a log line saying a session is gone. A line naming a
// session of another client concerns only that session; anything else
// is the host's loss on this server.
func (m *Model) logLost(s *server, sig Signal, now time.Time) []Event {
	if _, old := s.gone[sig.Session]; old && sig.Session != "" {
		return nil // that session's end was already judged
	}
	cur := m.currentSession(s)
	if _, known := s.sessions[sig.Session]; !known && !m.hostRunning() {
		return nil // no host runs to meet it: an old session's last words
	}
	if sig.Session != "" && cur != nil && cur.id != sig.Session {
		if sess, ok := s.sessions[sig.Session]; !ok || m.isHostClient(sess) {
			return nil // not the host's current session: nothing the user will meet
		}
	}
	if sess, ok := s.sessions[sig.Session]; ok && !m.isHostClient(sess) {
		delete(s.sessions, sess.id)
		s.remember(sess.id, now)
		return []Event{{Time: now, Kind: EvSessionLost, Server: s.cfg.Name, Session: sess.id,
			Client: sess.client,
			Detail: fmt.Sprintf("a session of %s on %s is gone: %s", clientLabel(sess.client), s.cfg.Name, sig.Detail)}}
	}
	id := sig.Session
	if id == "" && cur != nil {
		id = cur.id
	}
	return s.open(now, id, fmt.Sprintf("session on %s lost: %s", s.cfg.Name, sig.Detail))
}

func (s *server) atRiskEvent(sess *session, now time.Time) Event {
	idle := s.idle(sess, now)
	left := max(s.timeout()-idle, 0)
	return Event{Time: now, Kind: EvSessionAtRisk, Server: s.cfg.Name, Session: sess.id,
		Idle: idle.Truncate(time.Second), ExpiresIn: left.Truncate(time.Second),
		Detail: fmt.Sprintf("the host's session on %s has been idle %s and expires in %s", s.cfg.Name, idle.Round(time.Second), left.Round(time.Second))}
}

// legacyRejected journals a refused legacy session header, at most once
// per legacyQuiet per server.
func (s *server) legacyRejected(sig Signal, now time.Time) []Event {
	const legacyQuiet = 10 * time.Minute
	if !s.lastLegacy.IsZero() && now.Sub(s.lastLegacy) < legacyQuiet {
		return nil
	}
	s.lastLegacy = now
	return []Event{{Time: now, Kind: EvLegacyHeaderRejected, Server: s.cfg.Name,
		Detail: fmt.Sprintf("%s rejected a legacy session header: %s", s.cfg.Name, sig.Detail)}}
}
