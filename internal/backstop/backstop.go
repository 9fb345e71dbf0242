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

// New starts at shortest and grows to longest (longest below shortest is
// shortest).
func New(shortest, longest time.Duration) *Pace {
	return &Pace{min: shortest, max: max(shortest, longest), cur: shortest}
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
