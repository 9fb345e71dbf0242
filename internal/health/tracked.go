package health

import (
	"slices"
	"strings"
	"time"
)

// Tracked returns, per server, the sessions the model knows from the
// store, so a restarted daemon can compare the store against them instead
// of taking its first snapshot as a baseline (a session that ended while
// the daemon was down would otherwise go unnoticed). Servers whose store
// has never been read are left out.
func (m *Model) Tracked() map[string][]StoreSession {
	out := make(map[string][]StoreSession, len(m.order))
	for _, name := range m.order {
		s := m.servers[name]
		if !s.store.ever {
			continue
		}
		list := make([]StoreSession, 0, len(s.sessions))
		for _, sess := range s.sessions {
			st := StoreSession{ID: sess.id, Client: sess.client, Created: sess.created}
			if sess.knownActive {
				st.LastActivity = sess.lastActivity
			}
			list = append(list, st)
		}
		slices.SortFunc(list, func(a, b StoreSession) int { return strings.Compare(a.ID, b.ID) })
		out[name] = list
	}
	return out
}

// RestoreTracked seeds a server with the sessions a previous run tracked
// and saved at saved (it saw them alive until then at least). The next
// snapshot is then compared against them: what vanished meanwhile is judged
// (expired, ended or lost) as far as the blind spell allows. now stands in
// for unknown creation times.
func (m *Model) RestoreTracked(serverName string, sessions []StoreSession, saved, now time.Time) {
	s, ok := m.servers[serverName]
	if !ok || s.store.ever {
		return
	}
	s.store.ever = true
	for _, st := range sessions {
		if st.ID == "" {
			continue
		}
		if st.LastActivity.After(now) {
			st.LastActivity = now // saved before the clock was set back
		}
		sess := newSession(st, now)
		sess.restored, sess.seenUntil = true, saved
		if saved.After(now) {
			sess.seenUntil = now // saved before the clock was set back
		}
		s.sessions[st.ID] = sess
	}
}

// Owns reports whether the model tracks session on server: the store
// showed it, it is an open incident's lost session, or the live beacon
// names it. With several hosts watched, what names a session goes to the
// model that owns it.
func (m *Model) Owns(server, session string) bool {
	s, ok := m.servers[server]
	if !ok || session == "" {
		return false
	}
	if _, ok := s.sessions[session]; ok {
		return true
	}
	return s.incident != nil && s.incident.session == session || s.held != nil && s.held.Session == session
}
