package restart

import (
	"slices"
	"time"
)

// History is what a Limiter carries across a restart of the
// watchdog itself: without it a crash-looping watchdog would start every
// count over and restart the host without bound. The healthy stretch is
// not part of it: a watchdog that was down cannot vouch for the host
// meanwhile, so it has to see the hour of health itself.
type History struct {
	// Restarts are the restarts still within the window, oldest first.
	Restarts []time.Time
	// Last is the latest restart; zero: none yet.
	Last time.Time
	// Backoff is the wait after Last before the next restart; 0: none.
	Backoff time.Duration
}

// History is the limiter's state at now, for saving. Its times carry no
// monotonic reading: they mean the wall clock.
func (l *Limiter) History(now time.Time) History {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.settle(now)
	h := History{Last: l.last.Round(0), Backoff: l.backoff}
	for _, t := range l.restarts {
		h.Restarts = append(h.Restarts, t.Round(0))
	}
	return h
}

// Restore replaces the limiter's restarts with h, as of now (the last
// run's history at this run's start). A time after now is taken as now:
// the clock was set back since, and a restart dated in the future would
// otherwise hold the limit until the clock caught up, however long that
// is; as now it keeps counting, for one window at most. A backoff over
// the policy's cap is capped. Each time is re-anchored on now, so that
// with a now from time.Now every later comparison runs on the monotonic
// clock, which no setting of the wall clock moves.
func (l *Limiter) Restore(h History, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	restarts := slices.Clone(h.Restarts)
	slices.SortFunc(restarts, func(a, b time.Time) int { return a.Compare(b) })
	if n := len(restarts); n > l.p.Burst {
		restarts = restarts[n-l.p.Burst:] // older ones cannot change a decision
	}
	l.restarts = make([]time.Time, 0, len(restarts))
	for _, t := range restarts {
		l.restarts = append(l.restarts, anchor(t, now))
	}
	l.last = time.Time{}
	if !h.Last.IsZero() {
		l.last = anchor(h.Last, now)
	}
	if n := len(l.restarts); n > 0 && l.restarts[n-1].After(l.last) {
		l.last = l.restarts[n-1]
	}
	l.backoff = min(max(h.Backoff, 0), l.p.Max)
	if l.last.IsZero() {
		l.backoff = 0 // a backoff counts from a restart
	}
	l.healthy = time.Time{}
	l.settle(now)
}

// AssumeLimitReached makes the limiter act as if the policy's whole burst
// of restarts had just happened, with the longest backoff: the safe side
// when the history cannot be read, since a history lost must not lift the
// limit. Restarts are allowed again once the window has passed.
func (l *Limiter) AssumeLimitReached(now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.restarts = l.restarts[:0]
	for range l.p.Burst {
		l.restarts = append(l.restarts, now)
	}
	l.last = now
	l.backoff = l.p.Max
	l.healthy = time.Time{}
}

// anchor is wall time t expressed from now: t itself when now carries no
// monotonic reading, else the same wall time with now's monotonic clock.
// Never after now.
func anchor(t, now time.Time) time.Time {
	ago := now.Round(0).Sub(t)
	return now.Add(-max(ago, 0))
}
