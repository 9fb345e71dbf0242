// Package wallclock is the daemon's clock: the wall clock (plus the skew
// a debug build's drill names), and the detector of a sleep or a clock
// jump between two of its readings.
package wallclock

import "time"

// WakeThreshold is how far the wall clock may run apart from the monotonic
// clock between two ticks before we call it a sleep/wake (or a clock jump).
const WakeThreshold = 5 * time.Second

// WakeDetector compares wall-clock and monotonic time between ticks: the
// monotonic clock stops while the machine sleeps, the wall clock does not.
type WakeDetector struct {
	start    time.Time // a real reading: its monotonic part is the reference
	prevWall time.Time
	prevMono time.Duration
}

func NewWakeDetector(wall time.Time) *WakeDetector {
	return &WakeDetector{start: time.Now(), prevWall: wall.Round(0)}
}

// Observe takes the daemon's wall reading (which a debug skew may shift)
// and measures monotonic time itself.
func (w *WakeDetector) Observe(wall time.Time) (time.Duration, bool) {
	return w.ObserveReadings(wall.Round(0), time.Since(w.start))
}

// ObserveReadings takes the two clocks apart so tests can make them
// disagree. The gap is negative when the wall clock was set back.
func (w *WakeDetector) ObserveReadings(wall time.Time, mono time.Duration) (time.Duration, bool) {
	gap := wall.Sub(w.prevWall) - (mono - w.prevMono)
	w.prevWall, w.prevMono = wall, mono
	return gap, gap.Abs() >= WakeThreshold
}
