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

// TrackedDigest sums up, in one number, what Tracked and Incident say: each
// session's id, client, creation and known activity, and each open
// incident. It allocates nothing: a save that finds the digest it last wrote
// has nothing to write without building Tracked (the daemon asks on every
// tick and every signal; fifty liveness answers built fifty maps).
func (m *Model) TrackedDigest() uint64 {
	var sum uint64
	for _, name := range m.order {
		s := m.servers[name]
		base := strDigest(digestOffset, name)
		if s.store.ever {
			sum += mixDigest(base ^ 1)
		}
		for _, sess := range s.sessions {
			h := strDigest(strDigest(base, sess.id), sess.client)
			h = timeDigest(h, sess.created)
			if sess.knownActive {
				h = timeDigest(h, sess.lastActivity)
			}
			sum += mixDigest(h) // a sum: the sessions' map order does not matter
		}
		if in := s.incident; in != nil {
			sum += mixDigest(timeDigest(strDigest(base^2, in.session), in.since))
		}
	}
	return sum
}

// FNV-1a, with a 64-bit finalizer: enough to tell a change from none.
const (
	digestOffset = 14695981039346656037
	digestPrime  = 1099511628211
)

func strDigest(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * digestPrime
	}
	return (h ^ 0xff) * digestPrime // ends the string: "ab"+"c" is not "a"+"bc"
}

func timeDigest(h uint64, t time.Time) uint64 {
	if t.IsZero() {
		return (h ^ 0xfe) * digestPrime
	}
	return (h ^ uint64(t.UnixNano())) * digestPrime
}

func mixDigest(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}
