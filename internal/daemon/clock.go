package daemon

import "time"

// wakeThreshold is how far the wall clock may run apart from the monotonic
// clock between two ticks before we call it a sleep/wake (or a clock jump).
const wakeThreshold = 5 * time.Second

// wakeDetector compares wall-clock and monotonic time between ticks: the
// monotonic clock stops while the machine sleeps, the wall clock does not.
type wakeDetector struct {
	start    time.Time // a real reading: its monotonic part is the reference
	prevWall time.Time
	prevMono time.Duration
}

func newWakeDetector(wall time.Time) *wakeDetector {
	return &wakeDetector{start: time.Now(), prevWall: wall.Round(0)}
}

// observe takes the daemon's wall reading (which a debug skew may shift)
// and measures monotonic time itself.
func (w *wakeDetector) observe(wall time.Time) (time.Duration, bool) {
	return w.observeReadings(wall.Round(0), time.Since(w.start))
}

// observeReadings takes the two clocks apart so tests can make them
// disagree. The gap is negative when the wall clock was set back.
func (w *wakeDetector) observeReadings(wall time.Time, mono time.Duration) (time.Duration, bool) {
	gap := wall.Sub(w.prevWall) - (mono - w.prevMono)
	w.prevWall, w.prevMono = wall, mono
	return gap, gap.Abs() >= wakeThreshold
}
