//go:build watchdogdebug

package wallclock

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/fsutil"
)

func TestWallClockSkewFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "skew")
	c := New(path)
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
		c.Refresh()
		if got := time.Duration(c.skew.Load()); got != st.want {
			t.Fatalf("step %d (%q): skew %s, want %s", i, st.content, got, st.want)
		}
		if d := time.Until(c.Now()); d < st.want-time.Second || d > st.want+time.Second {
			t.Fatalf("step %d: now() is %s off, want about %s", i, d, st.want)
		}
	}
}

// TestWallClockWatchesItsFile: each write of the skew file (atomic, as
// the soak writes it) fires changed() through the directory watch, so
// the loop looks at the clock at once instead of at its next wake.
func TestWallClockWatchesItsFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "skew")
	c := New(path)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); c.Watch(ctx, nil, slog.New(slog.DiscardHandler)) }()
	t.Cleanup(func() { cancel(); <-done })
	for _, jump := range []time.Duration{40 * time.Second, 0} {
		// Written until seen: the watch may not be armed before the first.
		seen := false
		for try := 0; try < 100 && !seen; try++ {
			if err := fsutil.WriteAtomic(path, []byte(jump.String()), 0o600); err != nil {
				t.Fatal(err)
			}
			select {
			case <-c.Changed():
				seen = true
			case <-time.After(100 * time.Millisecond):
			}
		}
		if !seen {
			t.Fatalf("a write of %s to the skew file never fired changed()", jump)
		}
		c.Refresh()
		if got := time.Duration(c.skew.Load()); got != jump {
			t.Fatalf("skew %s after the write, want %s", got, jump)
		}
	}
	if New("").Changed() != nil {
		t.Fatal("a clock without a skew file has a change channel")
	}
}
