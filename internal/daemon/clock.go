package daemon

import (
	"os"
	"strings"
	"sync/atomic"
	"time"
)

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

// observeReadings takes the two clocks apart so tests can make them disagree.
func (w *wakeDetector) observeReadings(wall time.Time, mono time.Duration) (time.Duration, bool) {
	gap := wall.Sub(w.prevWall) - (mono - w.prevMono)
	w.prevWall, w.prevMono = wall, mono
	if gap < 0 {
		gap = -gap
	}
	return gap, gap >= wakeThreshold
}

// ClockSkewEnv names a file whose content (a Go duration such as "90s")
// is added to the daemon's wall clock, re-read every tick. It exists for
// the chaos soak: a real jump of the machine's clock would disturb every
// other process, so the soak jumps only its own world. Unset in normal use.
const ClockSkewEnv = "WATCHDOG_DEBUG_CLOCK_SKEW_FILE"

// wallClock is the daemon's clock: real time plus an optional skew.
type wallClock struct {
	skewFile string
	skew     atomic.Int64 // nanoseconds
}

func (c *wallClock) now() time.Time {
	return time.Now().Add(time.Duration(c.skew.Load()))
}

// refresh re-reads the skew file; a missing or unreadable one means no skew
// change, so a half-written file never moves the clock.
func (c *wallClock) refresh() {
	if c.skewFile == "" {
		return
	}
	b, err := os.ReadFile(c.skewFile)
	if err != nil {
		return
	}
	if d, err := time.ParseDuration(strings.TrimSpace(string(b))); err == nil {
		c.skew.Store(int64(d))
	}
}
