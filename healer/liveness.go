package healer

import (
	"slices"
	"time"
)

// Liveness pacing: a server that answers is asked again every LivenessEvery;
// one that does not is asked after LivenessEvery, then twice as long each
// time, up to LivenessMaxGap, so a server that has been gone for hours
// costs a request every ten minutes, not every thirty seconds.
const (
	LivenessEvery  = 30 * time.Second
	LivenessMaxGap = 10 * time.Minute
	// livenessRetry: a check that could not go (another request to the
	// server was in flight) is tried again this soon, not in a busy loop.
	livenessRetry = time.Second
)

// Liveness decides when each server's sessionless check is due. It is pure:
// the caller sends the checks and reports what came back. Any sign of life
// (a log line, a store change, a ping answer) makes a down server's next
// check due at once, so a server back from a restart is seen as up within
// moments, however long it was gone.
type Liveness struct {
	due  map[string]time.Time     // server → when its next check is due
	gap  map[string]time.Duration // server → the wait after its last down answer
	down map[string]bool          // server → its last check found it down
}

// NewLiveness returns a schedule with every server due now.
func NewLiveness(servers []string, now time.Time) *Liveness {
	l := &Liveness{due: map[string]time.Time{}, gap: map[string]time.Duration{}, down: map[string]bool{}}
	for _, s := range servers {
		l.due[s] = now
	}
	return l
}

// Due returns the servers whose check is due at now, in name order, and
// moves each one's next check a whole gap on; Answered or Unsent corrects
// that once the outcome is known.
func (l *Liveness) Due(now time.Time) []string {
	var due []string
	for s, at := range l.due {
		if !now.Before(at) || at.Sub(now) > l.wait(s) { // the clock went back: do not wait it out
			due = append(due, s)
			l.due[s] = now.Add(l.wait(s))
		}
	}
	slices.Sort(due)
	return due
}

// Answered records a check's outcome: up keeps the regular pace; down
// doubles the wait, from LivenessEvery to LivenessMaxGap.
func (l *Liveness) Answered(server string, up bool, now time.Time) {
	if _, ok := l.due[server]; !ok {
		return
	}
	if up {
		l.down[server], l.gap[server] = false, 0
		l.due[server] = now.Add(LivenessEvery)
		return
	}
	next := LivenessEvery
	if l.down[server] {
		next = min(max(l.gap[server], LivenessEvery)*2, LivenessMaxGap)
	}
	l.down[server], l.gap[server] = true, next
	l.due[server] = now.Add(next)
}

// Unsent takes back a check Due handed out that could not go (another
// request to the server was in flight): it is due again in a second.
func (l *Liveness) Unsent(server string, now time.Time) {
	if _, ok := l.due[server]; ok {
		l.due[server] = now.Add(livenessRetry)
	}
}

// Alive is a sign of life from server that was not a liveness answer:
// a down server is checked at once, and its backoff starts over.
func (l *Liveness) Alive(server string, now time.Time) {
	if !l.down[server] {
		return
	}
	l.down[server], l.gap[server] = false, 0 // a down answer now waits LivenessEvery again
	if l.due[server].After(now) {
		l.due[server] = now
	}
}

// Next is how long until the earliest check is due (0: one is due now);
// false when there are no servers.
func (l *Liveness) Next(now time.Time) (time.Duration, bool) {
	var next time.Duration
	found := false
	for _, at := range l.due {
		d := max(at.Sub(now), 0)
		if !found || d < next {
			next, found = d, true
		}
	}
	return next, found
}

func (l *Liveness) wait(server string) time.Duration {
	if l.down[server] && l.gap[server] > 0 {
		return l.gap[server]
	}
	return LivenessEvery
}
