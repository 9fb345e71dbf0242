//go:build !watchdogdebug

package daemon

import (
	"context"
	"log/slog"
	"time"

	"github.com/mcpwatchdog/watchdog/monitor/dirwatch"
)

// wallClock is the daemon's clock. A release build has no skew hook
// (clockskew_debug.go).
type wallClock struct{}

func newWallClock(string) *wallClock { return &wallClock{} }

func (*wallClock) now() time.Time { return time.Now() }

func (*wallClock) refresh() {}

func (*wallClock) changed() <-chan struct{} { return nil }

func (*wallClock) watch(context.Context, *dirwatch.Hub, *slog.Logger) {}
