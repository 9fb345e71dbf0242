package health

import (
	"fmt"
	"time"
)

// storeSnapshot applies a good snapshot of a server's store. The first one
// after start (or after the store was gone) is a baseline: sessions in it
// are tracked, not announced, and nothing in it vanished.
func (m *Model) storeSnapshot(s *server, sig StoreSnapshot, now time.Time) []Event {
	snap := sig.Sessions
	baseline := !s.store.ever
	s.store.has, s.store.ever, s.store.err = true, true, false
	s.noteServerStart(sig.ServerStarted)
	seen := make(map[string]bool, len(snap))
	var evs []Event
	for _, st := range snap {
		seen[st.ID] = true
		if sess, ok := s.sessions[st.ID]; ok {
			sess.update(st)
			if !sig.ServerGone {
				sess.restored = false // seen alive in this run
			}
			continue
		}
		if ended, ok := s.store.gone[st.ID]; ok && now.Sub(ended) < storeLag {
			continue // ended a moment ago: the store has not caught up yet
		}
		sess := newSession(st, now)
		s.sessions[st.ID] = sess
		if !baseline {
			evs = append(evs, m.sessionNew(s, sess, now)...)
		}
	}
	evs = append(evs, s.storeTruncated(sig, now)...)
	cut := cutLine(sig)
	for id, sess := range s.sessions {
		switch {
		case seen[id]:
		case sig.Truncated > 0 && !(sess.knownActive && sess.lastActivity.After(cut)):
			delete(s.sessions, id) // maybe among those left out: its fate is unknown
		default:
			evs = append(evs, m.vanished(s, sess, now)...)
		}
	}
	if !sig.ServerGone {
		for _, sess := range s.sessions {
			sess.restartSeen = s.proc.restarts // it outlived every restart so far
		}
	}
	s.unlearn(now)
	return evs
}

// noteServerStart records the start of the process serving the server's
// port: a different one than at the last snapshot means the server
// restarted, and what vanishes with it was ended by that restart.
func (s *server) noteServerStart(started time.Time) {
	if started.IsZero() {
		return
	}
	if !started.Equal(s.proc.serverStarted) {
		s.proc.restartAt, s.proc.restarts = started, s.proc.restarts+1
	}
	s.proc.serverStarted = started
}

// startLine notes the server's own start-up line, for servers whose process
// the watchdog cannot see (not on this machine, or another user's): it
// marks a restart as of now. History lines say nothing about now.
func (s *server) startLine(sig LogLine, now time.Time) {
	if sig.History || !s.proc.serverStarted.IsZero() {
		return
	}
	s.proc.restartAt, s.proc.restarts = now, s.proc.restarts+1
}

// endedByRestart: sess vanished because its server restarted: a restart it
// was not seen to survive, after its last activity.
func (s *server) endedByRestart(sess *session) bool {
	return s.proc.restarts > sess.restartSeen && !s.proc.restartAt.Before(sess.lastActivity)
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
		Facts:  Opened{Client: sess.client},
		Detail: fmt.Sprintf("new session of %s on %s", clientLabel(sess.client), s.cfg.Name)}}
	if s.incident == nil {
		return evs
	}
	switch {
	case s.maybeDead(sess):
		// It must answer a ping (Verify) before it is the recovery.
		if m.currentSession(s) == sess && s.incident.differs(sess.id, sess.created) {
			s.incident.candidate = sess.id
		}
	case s.incident.candidate == sess.id:
		evs = append(evs, s.recover(now, "the host's client holds a new session the server knows", sess.id)...)
	case m.currentSession(s) == sess && s.incident.differs(sess.id, sess.created):
		evs = append(evs, m.openedByItself(s, sess, now)...)
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
	if s.endedByRestart(sess) {
		return m.endedByRestart(s, sess, wasCurrent, idle, now)
	}
	if ev, ok := s.releasedEvent(sess, idle, now); ok {
		return []Event{ev}
	}
	if s.reasons.tellsReasons && s.expiredAt(idle) && !s.endedUnseen(sess, idle) {
		s.reasons.awaiting[sess.id] = awaitedEnd{sess: sess, wasCurrent: wasCurrent, idle: idle, at: now, src: m.source(s)}
		return nil // the log's word on why, or expiredAfterWait once it has not come
	}
	var evs []Event
	switch {
	case s.endedUnseen(sess, idle):
		if !wasCurrent {
			evs = append(evs, s.endEvent(EvSessionEnded, sess, idle, now, fmt.Sprintf(
				"ended while the watchdog was not running, after at most %s idle (timeout %s): it may have expired", idle.Round(time.Second), s.timeout())))
		}
	case s.expiredAt(idle):
		evs = append(evs, s.expiredEvent(sess, idle, now))
	default:
		evs = append(evs, s.learn(idle, now)...)
		if !wasCurrent {
			evs = append(evs, s.endEvent(EvSessionEnded, sess, idle, now, fmt.Sprintf("ended after %s idle", idle.Round(time.Second))))
		}
	}
	if wasCurrent {
		evs = append(evs, s.open(now, sess.id, fmt.Sprintf("the host's session on %s is gone from the server (idle %s); %s", s.cfg.Name, idle.Round(time.Second), s.nextCall()))...)
	}
	return evs
}

// expiredEvent: sess left the store after idle, past the timeout.
func (s *server) expiredEvent(sess *session, idle time.Duration, now time.Time) Event {
	return s.endEvent(EvSessionExpired, sess, idle, now, fmt.Sprintf("expired after %s idle (timeout %s)", idle.Round(time.Second), s.timeout()))
}

// endEvent is the journal event of sess leaving its server after idle
// (journaled in whole seconds); how ends "session of CLIENT on SERVER ...".
func (s *server) endEvent(kind EventKind, sess *session, idle time.Duration, now time.Time, how string) Event {
	return Event{Time: now, Kind: kind, Server: s.cfg.Name, Session: sess.id, Facts: Ended{Client: sess.client, Idle: idle.Truncate(time.Second)},
		Detail: fmt.Sprintf("session of %s on %s %s", clientLabel(sess.client), s.cfg.Name, how)}
}

// endedUnseen: sess, known from the last run, vanished past its timeout,
// but its timeout came after the last run stopped looking: it may have
// expired or ended another way while nobody watched, and neither is said.
// Its idle time is only an upper bound, so nothing is learnt from it.
func (s *server) endedUnseen(sess *session, idle time.Duration) bool {
	return sess.restored && s.expiredAt(idle) && !s.expiredAt(s.idle(sess, sess.seenUntil))
}

func (s *server) storeGone(now time.Time, detail string) []Event {
	if !s.store.has {
		return nil
	}
	s.store.has = false
	return []Event{{Time: now, Kind: EvWarning, Server: s.cfg.Name,
		Detail: fmt.Sprintf("the session store of %s is gone (%s); session state unknown until it returns", s.cfg.Name, detail)}}
}

func (s *server) storeError(now time.Time, detail string) []Event {
	if s.store.err {
		return nil
	}
	s.store.err = true
	return []Event{{Time: now, Kind: EvWarning, Server: s.cfg.Name,
		Detail: fmt.Sprintf("cannot read the session store of %s (%s); keeping the last good snapshot and retrying", s.cfg.Name, detail)}}
}

// storeTruncated warns once per streak of snapshots cut at the reader's cap.
func (s *server) storeTruncated(sig StoreSnapshot, now time.Time) []Event {
	was := s.store.trunc
	s.store.trunc = sig.Truncated > 0
	if !s.store.trunc || was {
		return nil
	}
	return []Event{{Time: now, Kind: EvWarning, Server: s.cfg.Name,
		Detail: fmt.Sprintf("the session store of %s holds more sessions than the watchdog reads: %d kept, %d less recently active ones left out and not judged", s.cfg.Name, len(sig.Sessions), sig.Truncated)}}
}

// cutLine is the oldest activity a truncated snapshot kept: the reader
// keeps the most recently active sessions, so one more recent than this
// that is missing has really left the store.
func cutLine(sig StoreSnapshot) time.Time {
	var cut time.Time
	for i, st := range sig.Sessions {
		if i == 0 || st.LastActivity.Before(cut) {
			cut = st.LastActivity
		}
	}
	return cut
}

func clientLabel(c string) string {
	if c == "" {
		return "an unnamed client"
	}
	return c
}

// storeLag is how long a store may still list a session after its end was
// judged (the server logs the end, then rewrites its store): not a new one.
const storeLag = 10 * time.Second

// goneMemory bounds how many ended ids a server remembers.
const goneMemory = 64

// remember notes an id that ended, so a later log line about it (a client
// closing its dead session, say) is not a new loss.
func (s *server) remember(id string, now time.Time) {
	if len(s.store.gone) >= goneMemory {
		oldest := ""
		for k, t := range s.store.gone {
			if oldest == "" || t.Before(s.store.gone[oldest]) {
				oldest = k
			}
		}
		delete(s.store.gone, oldest)
	}
	s.store.gone[id] = now
}

// endedByRestart journals a session its server's restart took: lost, not
// expired, whatever its idle time; the host's current one opens an
// incident.
func (m *Model) endedByRestart(s *server, sess *session, wasCurrent bool, idle time.Duration, now time.Time) []Event {
	if wasCurrent {
		return s.open(now, sess.id, fmt.Sprintf("the host's session on %s is gone: the server restarted; %s", s.cfg.Name, s.nextCall()))
	}
	return []Event{{Time: now, Kind: EvSessionLost, Server: s.cfg.Name, Session: sess.id, Facts: Loss{Client: sess.client},
		Detail: fmt.Sprintf("a session of %s on %s is gone: the server restarted (idle %s)", clientLabel(sess.client), s.cfg.Name, idle.Round(time.Second))}}
}
