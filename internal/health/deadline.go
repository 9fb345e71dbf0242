package health

import "time"

// NextDeadline is the earliest moment after which Tick could say something
// it would not say now: a session crossing into its at-risk window, a heal
// overdue, a flapping incident calm long enough to close. The daemon sleeps
// until then instead of ticking every second; an observation may bring an
// earlier one, so the caller asks again after each. ok is false when nothing
// is due at all (no timeouts, no open incidents).
func (m *Model) NextDeadline(now time.Time) (at time.Time, ok bool) {
	earliest := func(t time.Time) {
		if !t.IsZero() && (!ok || t.Before(at)) {
			at, ok = t, true
		}
	}
	for _, name := range m.order {
		s := m.servers[name]
		if s.incident != nil {
			earliest(s.incident.due)
			if s.flap.on && !s.flap.calm.IsZero() {
				earliest(s.flap.calm.Add(flapQuiet))
			}
		}
		for _, a := range s.reasons.awaiting {
			earliest(a.at.Add(reasonWait))
		}
		for _, sess := range s.sessions {
			if !sess.atRisk {
				earliest(s.atRiskFrom(sess))
			}
		}
	}
	if ok && at.Before(now) {
		at = now // overdue: due at once
	}
	return at, ok
}

// atRiskFrom is when sess enters its at-risk window if nothing happens;
// zero when the server has no timeout.
func (s *server) atRiskFrom(sess *session) time.Time {
	t := s.timeout()
	if t <= 0 {
		return time.Time{}
	}
	return sess.lastActivity.Add(t - s.atRiskWindow())
}
