package daemon

import (
	"os"
	"path/filepath"
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
			w := newWakeDetector(start)
			gap, woke := w.observeReadings(start.Add(time.Second+tt.wallJump), time.Second)
			if woke != tt.wantWoke {
				t.Fatalf("woke = %v (gap %s), want %v", woke, gap, tt.wantWoke)
			}
			// The next steady tick is not a second wake.
			if _, again := w.observeReadings(start.Add(2*time.Second+tt.wallJump), 2*time.Second); again {
				t.Fatal("a steady tick after the jump counted as another wake")
			}
		})
	}
}

func TestWallClockSkewFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "skew")
	c := &wallClock{skewFile: path}
	steps := []struct {
		content string // "" removes the file
		want    time.Duration
	}{
		{"", 0},
		{"90s\n", 90 * time.Second},
		{"not a duration", 90 * time.Second}, // a bad or half-written file changes nothing
		{"", 90 * time.Second},
		{"-1h", -time.Hour},
		{"0s", 0},
	}
	for i, st := range steps {
		if st.content == "" {
			_ = os.Remove(path)
		} else if err := os.WriteFile(path, []byte(st.content), 0o600); err != nil {
			t.Fatal(err)
		}
		c.refresh()
		if got := time.Duration(c.skew.Load()); got != st.want {
			t.Fatalf("step %d (%q): skew %s, want %s", i, st.content, got, st.want)
		}
		if d := c.now().Sub(time.Now()); d < st.want-time.Second || d > st.want+time.Second {
			t.Fatalf("step %d: now() is %s off, want about %s", i, d, st.want)
		}
	}
}
