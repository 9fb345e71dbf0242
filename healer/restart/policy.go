package restart

import (
	"fmt"
	"sync"
	"time"
)

// Restart limits by default: Kubernetes' crash backoff (10 s doubling to
// 5 min, forgotten after a healthy stretch) combined with a systemd-style
// start limit (StartLimitBurst over StartLimitIntervalSec), stretched to a
// desktop app's pace.
const (
	DefaultInitial    = 10 * time.Second
	DefaultMax        = 5 * time.Minute
	DefaultBurst      = 5
	DefaultWindow     = 30 * time.Minute
	DefaultResetAfter = time.Hour
)

// Policy bounds how often the host is restarted. Each zero field
// takes its default.
type Policy struct {
	// Initial is the wait after the first restart before another; it
	// doubles after each restart. The very first restart is immediate.
	// 0: DefaultInitial.
	Initial time.Duration
	// Max caps the doubling wait. 0: DefaultMax.
	Max time.Duration
	// Burst is how many restarts Window may hold; one more is refused
	// until the oldest leaves the window. 0: DefaultBurst.
	Burst int
	// Window is the sliding window Burst counts over. 0: DefaultWindow.
	Window time.Duration
	// ResetAfter is how long the host must stay healthy for the backoff to
	// start over from an immediate restart. 0: DefaultResetAfter.
	ResetAfter time.Duration
}

// DefaultPolicy is 10 s doubling to 5 min, at most 5 restarts in
// 30 min, the backoff forgotten after an hour of health.
func DefaultPolicy() Policy {
	return Policy{
		Initial:    DefaultInitial,
		Max:        DefaultMax,
		Burst:      DefaultBurst,
		Window:     DefaultWindow,
		ResetAfter: DefaultResetAfter,
	}
}

func (p Policy) withDefaults() Policy {
	d := DefaultPolicy()
	if p.Initial <= 0 {
		p.Initial = d.Initial
	}
	if p.Max <= 0 {
		p.Max = d.Max
	}
	if p.Max < p.Initial {
		p.Max = p.Initial
	}
	if p.Burst <= 0 {
		p.Burst = d.Burst
	}
	if p.Window <= 0 {
		p.Window = d.Window
	}
	if p.ResetAfter <= 0 {
		p.ResetAfter = d.ResetAfter
	}
	return p
}

// Decision is the limiter's answer to "may the host be restarted now?".
type Decision struct {
	// OK: restart now (then call Record).
	OK bool
	// Wait is how long until a restart would be allowed; 0 when OK.
	Wait time.Duration
	// Reason says why a restart was refused, for the journal and the
	// tray; empty when OK.
	Reason string
	// Limited: refused by the burst limit, not just the backoff. The
	// healer gives up (heal_failed) instead of waiting its turn.
	Limited bool
}

// Limiter applies a Policy. It does no I/O and reads no
// clock: every method is given the time. Safe for concurrent use.
type Limiter struct {
	p Policy

	mu       sync.Mutex
	restarts []time.Time   // within the window, oldest first
	last     time.Time     // the latest restart; zero: none yet
	backoff  time.Duration // wait after last before the next; 0: none
	healthy  time.Time     // since when the host is healthy; zero: not known healthy
}

// NewLimiter returns a limiter with no restarts behind it.
func NewLimiter(p Policy) *Limiter {
	return &Limiter{p: p.withDefaults()}
}

// Policy is the policy in force, defaults filled in.
func (l *Limiter) Policy() Policy { return l.p }

// Allow reports whether the host may be restarted at now; when not, how
// long until it may and why. Asking changes nothing: call Record once the
// restart happened.
func (l *Limiter) Allow(now time.Time) (ok bool, wait time.Duration, reason string) {
	d := l.Decide(now)
	return d.OK, d.Wait, d.Reason
}

// Decide is Allow with the kind of refusal spelled out.
func (l *Limiter) Decide(now time.Time) Decision {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.settle(now)
	var d Decision
	if l.backoff > 0 {
		if next := l.last.Add(l.backoff); now.Before(next) {
			d.Wait = next.Sub(now)
			d.Reason = fmt.Sprintf("backoff: next restart allowed in %s", ceilSecond(d.Wait))
		}
	}
	if n := len(l.restarts); n >= l.p.Burst {
		// Allowed again once enough restarts have left the window for
		// one more to fit.
		until := l.restarts[n-l.p.Burst].Add(l.p.Window)
		d.Wait = max(d.Wait, until.Sub(now))
		d.Limited = true
		d.Reason = fmt.Sprintf("limit: %d restarts within %s; giving up until %s",
			n, l.p.Window, until.Format(time.RFC3339))
	}
	d.OK = d.Reason == ""
	return d
}

// Record notes a restart at now. It lengthens the backoff and ends any
// healthy stretch: the restarted host has to prove itself again.
func (l *Limiter) Record(now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.settle(now)
	l.restarts = append(l.restarts, now)
	l.last = now
	l.healthy = time.Time{}
	if l.backoff == 0 {
		l.backoff = l.p.Initial
	} else {
		l.backoff = min(2*l.backoff, l.p.Max)
	}
}

// Healthy notes that the host has been healthy since the given time (when
// health began, not now). Once ResetAfter has passed since then, the
// backoff starts over. Calling it again while healthy keeps the earlier
// start, so callers may report health on every check; health cannot have
// begun before the latest restart.
func (l *Limiter) Healthy(since time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if since.Before(l.last) {
		since = l.last
	}
	if l.healthy.IsZero() || since.Before(l.healthy) {
		l.healthy = since
	}
}

// Unhealthy ends a healthy stretch before it reset the backoff.
func (l *Limiter) Unhealthy() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.healthy = time.Time{}
}

// settle drops restarts that left the window and forgets the backoff after
// a long enough healthy stretch. Callers hold l.mu.
func (l *Limiter) settle(now time.Time) {
	// A restart dated after now means the clock was set back: it counts
	// as now, so the limit holds one window at most, not until the clock
	// has caught up with it.
	for i, t := range l.restarts {
		if t.After(now) {
			l.restarts[i] = now
		}
	}
	if l.last.After(now) {
		l.last = now
	}
	cut := now.Add(-l.p.Window)
	i := 0
	for i < len(l.restarts) && !l.restarts[i].After(cut) {
		i++
	}
	// Copy down so the slice's memory stays bounded by Burst-ish entries.
	l.restarts = append(l.restarts[:0], l.restarts[i:]...)
	if !l.healthy.IsZero() && now.Sub(l.healthy) >= l.p.ResetAfter {
		l.backoff = 0
	}
}

// ceilSecond rounds d up to whole seconds, so "in 0s" is never said of a
// wait that has not passed.
func ceilSecond(d time.Duration) time.Duration {
	return (d + time.Second - 1).Truncate(time.Second)
}
