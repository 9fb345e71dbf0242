package health

import (
	"fmt"
	"slices"
	"time"
)

// Tunables of the expiry rules.
const (
	// AtRiskFraction of the idle timeout after which a session is at risk.
	AtRiskFraction = 0.8
	// AtRiskWindow is the time left under which a session is at risk even
	// before AtRiskFraction; capped at atRiskWindowCap of the timeout so short
	// timeouts are not at risk from their first second, nor at the moment
	// keep-warm pings them (half the timeout).
	AtRiskWindow    = 10 * time.Minute
	atRiskWindowCap = 0.3
	// expiredFraction: a session that vanished after this share of its idle
	// timeout expired; the server's sweep and our clock are not exact.
	expiredFraction = 0.9
	// learnAgreement is how close two vanish times must be to teach a timeout.
	learnAgreement = 0.1
	// learnMinimum ignores vanishes too quick to be an idle timeout.
	learnMinimum = time.Second
	// atRiskLastMoment: a session found at risk with less than this left
	// (one tick of the daemon) is not announced: it would arrive with its
	// loss, too late to act on.
	atRiskLastMoment = time.Second
)

// Timeout is server's idle timeout in force (0 for an unknown server).
func (m *Model) Timeout(server string) time.Duration {
	if s, ok := m.servers[server]; ok {
		return s.timeout()
	}
	return 0
}

// timeout is the idle timeout in force: the server's announcement, then what
// was learned from its behaviour, then the configuration.
func (s *server) timeout() time.Duration {
	switch {
	case s.timeouts.announced > 0:
		return s.timeouts.announced
	case s.timeouts.learned > 0:
		return s.timeouts.learned
	}
	return s.cfg.IdleTimeout
}

func (s *server) idle(sess *session, now time.Time) time.Duration {
	if d := now.Sub(sess.lastActivity); d > 0 {
		return d
	}
	return 0
}

func (s *server) atRisk(sess *session, now time.Time) bool {
	t := s.timeout()
	if t <= 0 {
		return false
	}
	return t-s.idle(sess, now) <= s.atRiskWindow()
}

// atRiskWindow is how long before its timeout a session counts as at risk.
func (s *server) atRiskWindow() time.Duration {
	t := s.timeout()
	return max(time.Duration(float64(t)*(1-AtRiskFraction)), min(AtRiskWindow, time.Duration(float64(t)*atRiskWindowCap)))
}

func (s *server) expiredAt(idle time.Duration) bool {
	t := s.timeout()
	return t > 0 && idle >= time.Duration(float64(t)*expiredFraction)
}

// learn records the idle time of a session that vanished unexplained. Two
// vanishes that agree within learnAgreement, both short of the timeout in
// force, teach that the server's real timeout is the shorter of them.
func (s *server) learn(idle time.Duration, now time.Time) []Event {
	if idle < learnMinimum || s.timeouts.announced > 0 {
		return nil
	}
	for _, prev := range s.timeouts.vanished {
		lo, hi := min(prev, idle), max(prev, idle)
		if float64(hi-lo) > float64(hi)*learnAgreement {
			continue
		}
		s.timeouts.vanished = nil
		if s.timeouts.learned == lo {
			return nil
		}
		s.timeouts.learned = lo
		return []Event{{Time: now, Kind: EvTimeoutLearned, Server: s.cfg.Name,
			Extra:  map[string]any{"idle_timeout_seconds": int64(lo.Seconds())},
			Detail: fmt.Sprintf("sessions vanish after about %s idle: using that as %s's idle timeout", lo.Round(time.Second), s.cfg.Name)}}
	}
	s.timeouts.vanished = append(s.timeouts.vanished, idle)
	if len(s.timeouts.vanished) > 8 {
		s.timeouts.vanished = slices.Delete(s.timeouts.vanished, 0, 1)
	}
	return nil
}

// unlearn drops a learned timeout that a living session has outlasted.
func (s *server) unlearn(now time.Time) {
	if s.timeouts.learned == 0 {
		return
	}
	for _, sess := range s.sessions {
		if s.idle(sess, now) > s.timeouts.learned+s.timeouts.learned/10 {
			s.timeouts.learned = 0
			return
		}
	}
}

func (s *server) announce(t time.Duration, now time.Time) []Event {
	if t <= 0 || t == s.timeouts.announced {
		return nil
	}
	s.timeouts.announced = t
	return []Event{{Time: now, Kind: EvServerMode, Server: s.cfg.Name,
		Extra:  map[string]any{"mode": string(Stateful), "idle_timeout_seconds": int64(t.Seconds())},
		Detail: fmt.Sprintf("%s announces an idle timeout of %s", s.cfg.Name, t)}}
}
