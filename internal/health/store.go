package health

import (
	"fmt"
	"time"
)

// storeSnapshot applies a good snapshot of a server's store. The first one
// after start (or after the store was gone) is a baseline: sessions in it
// are tracked, not announced, and nothing in it vanished.
func (m *Model) storeSnapshot(s *server, snap []StoreSession, now time.Time) []Event {
	baseline := !s.everStore
	s.hasStore, s.everStore, s.storeErr = true, true, false
	seen := make(map[string]bool, len(snap))
	var evs []Event
	for _, st := range snap {
		seen[st.ID] = true
		if sess, ok := s.sessions[st.ID]; ok {
			sess.update(st)
			continue
		}
		sess := newSession(st, now)
		s.sessions[st.ID] = sess
		if !baseline {
			evs = append(evs, m.sessionNew(s, sess, now)...)
		}
	}
	for id, sess := range s.sessions {
		if !seen[id] {
			evs = append(evs, m.vanished(s, sess, now)...)
		}
	}
	s.unlearn(now)
	return evs
}

func newSession(st StoreSession, now time.Time) *session {
	sess := &session{id: st.ID, client: st.Client, created: st.Created, lastActivity: st.LastActivity,
		knownActive: !st.LastActivity.IsZero()}
	if sess.created.IsZero() {
		sess.created = now
	}
	if sess.lastActivity.IsZero() {
		sess.lastActivity = sess.created
	}
	return sess
}

func (sess *session) update(st StoreSession) {
	if st.Client != "" {
		sess.client = st.Client
	}
	if st.LastActivity.After(sess.lastActivity) {
		sess.lastActivity, sess.knownActive = st.LastActivity, true
		sess.atRisk = false
	}
}

func (m *Model) sessionNew(s *server, sess *session, now time.Time) []Event {
	evs := []Event{{Time: now, Kind: EvSessionNew, Server: s.cfg.Name, Session: sess.id,
		Client: sess.client,
		Detail: fmt.Sprintf("new session of %s on %s", clientLabel(sess.client), s.cfg.Name)}}
	if s.incident != nil && m.isHostClient(sess) && m.currentSession(s) == sess {
		evs = append(evs, s.recover(now, hostOpenedNew)...)
	}
	return evs
}

// vanished judges a session that left the store: expired if it sat idle
// past the timeout; lost if it was the host's current session while the host
// runs (its next call will fail); otherwise simply ended.
func (m *Model) vanished(s *server, sess *session, now time.Time) []Event {
	wasCurrent := m.currentSession(s) == sess && m.hostRunning()
	delete(s.sessions, sess.id)
	s.remember(sess.id, now)
	idle := s.idle(sess, now)
	journaledIdle := idle.Truncate(time.Second) // whole seconds, as journaled
	var evs []Event
	switch {
	case s.expiredAt(idle):
		evs = append(evs, Event{Time: now, Kind: EvSessionExpired, Server: s.cfg.Name, Session: sess.id, Client: sess.client, Idle: journaledIdle,
			Detail: fmt.Sprintf("session of %s on %s expired after %s idle (timeout %s)", clientLabel(sess.client), s.cfg.Name, idle.Round(time.Second), s.timeout())})
	default:
		evs = append(evs, s.learn(idle, now)...)
		if !wasCurrent {
			evs = append(evs, Event{Time: now, Kind: EvSessionEnded, Server: s.cfg.Name, Session: sess.id, Client: sess.client, Idle: journaledIdle,
				Detail: fmt.Sprintf("session of %s on %s ended after %s idle", clientLabel(sess.client), s.cfg.Name, idle.Round(time.Second))})
		}
	}
	if wasCurrent {
		evs = append(evs, s.open(now, sess.id, fmt.Sprintf("the host's session on %s is gone from the server (idle %s); its next call will fail", s.cfg.Name, idle.Round(time.Second)))...)
	}
	return evs
}

func (s *server) storeGone(now time.Time, detail string) []Event {
	if !s.hasStore {
		return nil
	}
	s.hasStore = false
	return []Event{{Time: now, Kind: EvWarning, Server: s.cfg.Name,
		Detail: fmt.Sprintf("the session store of %s is gone (%s); session state unknown until it returns", s.cfg.Name, detail)}}
}

func (s *server) storeError(now time.Time, detail string) []Event {
	if s.storeErr {
		return nil
	}
	s.storeErr = true
	return []Event{{Time: now, Kind: EvWarning, Server: s.cfg.Name,
		Detail: fmt.Sprintf("cannot read the session store of %s (%s); keeping the last good snapshot and retrying", s.cfg.Name, detail)}}
}

func clientLabel(c string) string {
	if c == "" {
		return "an unnamed client"
	}
	return c
}

// goneMemory bounds how many ended ids a server remembers.
const goneMemory = 64

// remember notes an id that ended, so a later log line about it (a client
// closing its dead session, say) is not a new loss.
func (s *server) remember(id string, now time.Time) {
	if len(s.gone) >= goneMemory {
		oldest := ""
		for k, t := range s.gone {
			if oldest == "" || t.Before(s.gone[oldest]) {
				oldest = k
			}
		}
		delete(s.gone, oldest)
	}
	s.gone[id] = now
}
