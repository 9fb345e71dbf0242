// Package backstop paces the slow re-check that covers for change
// notifications that did not come (an overflowed inotify queue, a write
// through another name). While the re-checks find nothing the events had
// not already told, they grow rarer, doubling up to a cap; one that finds
// something brings the short period back at once. A quiet machine then
// wakes for them a few times an hour instead of every few seconds.
package backstop

import "time"

// Pace is one re-check schedule. The zero value is not usable; use New.
// Not safe for concurrent use: the loop that re-checks owns it.
type Pace struct {
	min, max, cur time.Duration
}

// firstWaits is the first wait of a pace that grows, in shortest periods.
// The start's own scan, made once the events were watched, is the check
// the short period follows: the first re-check comes where the second came
// when the pace started short (10 s, then 20 more), and the waits double
// from there (30, 60, 120 s: the liveness checks of servers that do not
// answer wait as long, so a daemon's start-up wakes once for both). A
// daemon's first minute then re-checks once, not twice.
const firstWaits = 3

// New grows from shortest to longest (longest below shortest is
// shortest); a pace that grows waits firstWaits shortest periods first
// (at most longest).
func New(shortest, longest time.Duration) *Pace {
	p := &Pace{min: shortest, max: max(shortest, longest), cur: shortest}
	if p.max > p.min {
		p.cur = min(firstWaits*shortest, p.max)
	}
	return p
}

// Next is the wait before the next re-check.
func (p *Pace) Next() time.Duration { return p.cur }

// Checked records a re-check: found says it caught something the events
// had missed, which brings the short period back; otherwise the wait
// doubles, up to the cap.
func (p *Pace) Checked(found bool) {
	if found {
		p.cur = p.min
		return
	}
	p.cur = min(p.cur*2, p.max)
}
