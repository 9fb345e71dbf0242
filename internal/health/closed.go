package health

import (
	"fmt"
	"maps"
	"slices"
	"time"
)

// sessionClosed takes the server's own word on why it ended a session it
// tracks: the end is journaled now, named by that reason, and the store's
// later snapshot finds nothing more to say. A session no longer tracked
// was already judged (the snapshot came first); history says nothing new.
func (m *Model) sessionClosed(s *server, sig SessionClosed, now time.Time) []Event {
	if sig.History || !sig.Reason.known() {
		return nil
	}
	s.reasons.tellsReasons = true
	if a, ok := s.reasons.awaiting[sig.Session]; ok {
		delete(s.reasons.awaiting, sig.Session)
		return m.sourcedFrom(m.closedFor(s, a.sess, a.wasCurrent, a.idle, sig.Reason, now), a.src)
	}
	sess, ok := s.sessions[sig.Session]
	if !ok {
		return nil
	}
	wasCurrent := m.currentSession(s) == sess && m.hostRunning()
	delete(s.sessions, sess.id)
	s.remember(sess.id, now)
	return m.closedFor(s, sess, wasCurrent, s.idle(sess, now), sig.Reason, now)
}

// closedFor journals the end of sess for the reason the server's log gave.
func (m *Model) closedFor(s *server, sess *session, wasCurrent bool, idle time.Duration, reason EndReason, now time.Time) []Event {
	switch reason {
	case EndShutdown:
		return m.endedByRestart(s, sess, wasCurrent, idle, now)
	case EndDeleted:
		// The client ended it itself: nothing was lost, whoever it was.
		return []Event{s.endEvent(EvSessionEnded, sess, idle, now, "ended: its client closed it (the server's log)")}
	}
	return s.closedIdle(sess, wasCurrent, idle, now)
}

func (r EndReason) known() bool { return r == EndIdle || r == EndDeleted || r == EndShutdown }

// closedIdle: the server's idle timeout ended sess. An idle time short of
// the timeout we believe teaches the real one.
func (s *server) closedIdle(sess *session, wasCurrent bool, idle time.Duration, now time.Time) []Event {
	var evs []Event
	if !s.expiredAt(idle) {
		evs = append(evs, s.learn(idle, now)...)
	}
	evs = append(evs, s.endEvent(EvSessionExpired, sess, idle, now,
		fmt.Sprintf("expired after %s idle: the server's idle timeout ended it (its log)", idle.Round(time.Second))))
	if wasCurrent {
		evs = append(evs, s.open(now, sess.id, fmt.Sprintf("the host's session on %s is gone: the server's idle timeout ended it (idle %s); %s",
			s.cfg.Name, idle.Round(time.Second), s.nextCall()))...)
	}
	return evs
}

// reasonWait is how long a session gone from the store past its timeout
// waits for the server's log to say why, when that log tells reasons: a
// client's DELETE after the timeout but before the server's sweep ends a
// session that did not expire, and the store's snapshot may come first
// (CI at 027d4ec: by 84 ms). The store-to-event goal (p99 100 ms) bounds it.
const reasonWait = 50 * time.Millisecond

// awaitedEnd is a session gone from the store, its end not yet journaled.
type awaitedEnd struct {
	sess       *session
	wasCurrent bool
	idle       time.Duration // when it left the store
	at         time.Time     // when it left the store
	// src is where the model had the host's session from when it left
	// the store: its end is journaled with that, not with the word of the
	// moment the wait ends (CI at ee14767: the host was killed meanwhile,
	// its beacon went quiet, and the loss read "inferred").
	src IdentitySource
}

// Settle journals at once the ends that wait for their server's word
// (as expired, as the store alone says): the daemon is stopping, and an
// end not journaled before its stop would be lost with the run.
func (m *Model) Settle(now time.Time) []Event {
	var evs []Event
	for _, name := range m.order {
		evs = append(evs, m.awaitedExpired(m.servers[name], now, true)...)
	}
	return evs
}

// awaitedExpired journals as expired the sessions whose log word has not
// come within reasonWait (all: every one), as the store alone would have
// at once. The events come sourced (awaitedEnd.src).
func (m *Model) awaitedExpired(s *server, now time.Time, all bool) []Event {
	if len(s.reasons.awaiting) == 0 {
		return nil // every tick, for every server: sorting nothing still allocated
	}
	var evs []Event
	for _, id := range slices.Sorted(maps.Keys(s.reasons.awaiting)) {
		a := s.reasons.awaiting[id]
		if !all && now.Before(a.at.Add(reasonWait)) {
			continue
		}
		delete(s.reasons.awaiting, id)
		end := []Event{s.expiredEvent(a.sess, a.idle, now)}
		if a.wasCurrent {
			end = append(end, s.open(now, id, fmt.Sprintf("the host's session on %s is gone from the server (idle %s); %s", s.cfg.Name, a.idle.Round(time.Second), s.nextCall()))...)
		}
		evs = append(evs, m.sourcedFrom(end, a.src)...)
	}
	return evs
}
