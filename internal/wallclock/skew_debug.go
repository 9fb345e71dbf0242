//go:build watchdogdebug

package wallclock

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mcpwatchdog/watchdog/monitor/dirwatch"
)

// Clock is the daemon's clock: real time plus the skew a debug file
// names (SkewEnv).
type Clock struct {
	skewFile string
	skew     atomic.Int64  // nanoseconds
	moved    chan struct{} // the skew file changed: look at the clock now
}

// New is the clock, skewed by what skewFile says (none: "").
func New(skewFile string) *Clock {
	c := &Clock{skewFile: skewFile, moved: make(chan struct{}, 1)}
	c.Refresh()
	return c
}

func (c *Clock) Now() time.Time {
	return time.Now().Add(time.Duration(c.skew.Load()))
}

// Refresh re-reads the skew file; a missing or unreadable one means no skew
// change, so a half-written file never moves the clock.
func (c *Clock) Refresh() {
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

// Changed fires after the skew file changed; nil (never) without one.
func (c *Clock) Changed() <-chan struct{} {
	if c.skewFile == "" {
		return nil
	}
	return c.moved
}

// Watch follows the skew file's directory on hub until ctx ends, as every
// other file is watched: a jump reaches the loop at once, so the loop's
// longest sleep is the same as in the shipped binary.
func (c *Clock) Watch(ctx context.Context, hub *dirwatch.Hub, log *slog.Logger) {
	if c.skewFile == "" {
		return
	}
	w, err := dirwatch.Open(ctx, hub)
	if err == nil {
		defer w.Close()
		err = w.Add(filepath.Dir(c.skewFile))
	}
	if err != nil {
		log.Warn("debug build: cannot watch the clock skew file", "file", c.skewFile, "err", err)
		return
	}
	want := filepath.Clean(c.skewFile)
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-w.Events:
			if !ok {
				return
			}
			if filepath.Clean(ev.Name) == want {
				c.poke()
			}
		case _, ok := <-w.Errors: // an overflow may have hidden a change
			if !ok {
				return
			}
			c.poke()
		}
	}
}

func (c *Clock) poke() {
	select {
	case c.moved <- struct{}{}:
	default:
	}
}
