package health

import (
	"fmt"
	"time"
)

// sessionClosed takes the server's own word on why it ended a session it
// tracks: the end is journaled now, named by that reason, and the store's
// later snapshot finds nothing more to say. A session no longer tracked
// was already judged (the snapshot came first); history says nothing new.
func (m *Model) sessionClosed(s *server, sig Signal, now time.Time) []Event {
	sess, ok := s.sessions[sig.Session]
	if !ok || sig.History || !sig.EndReason.known() {
		return nil
	}
	wasCurrent := m.currentSession(s) == sess && m.hostRunning()
	delete(s.sessions, sess.id)
	s.remember(sess.id, now)
	idle := s.idle(sess, now)
	switch sig.EndReason {
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
