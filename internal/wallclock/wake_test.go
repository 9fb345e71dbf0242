package wallclock

import (
	"testing"
	"time"
)

func TestWakeDetector(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	tests := []struct {
		name     string
		wallJump time.Duration // the wall clock moves this much more than the monotonic one
		wantWoke bool
	}{
		{"steady", 0, false},
		{"small drift", 2 * time.Second, false},
		{"slept an hour", time.Hour, true},
		{"clock set back", -time.Hour, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := NewWakeDetector(start)
			gap, woke := w.ObserveReadings(start.Add(time.Second+tt.wallJump), time.Second)
			if woke != tt.wantWoke {
				t.Fatalf("woke = %v (gap %s), want %v", woke, gap, tt.wantWoke)
			}
			// The next steady tick is not a second wake.
			if _, again := w.ObserveReadings(start.Add(2*time.Second+tt.wallJump), 2*time.Second); again {
				t.Fatal("a steady tick after the jump counted as another wake")
			}
		})
	}
}
