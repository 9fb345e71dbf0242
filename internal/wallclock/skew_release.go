//go:build !watchdogdebug

package wallclock

import (
	"context"
	"log/slog"
	"time"

	"github.com/mcpwatchdog/watchdog/monitor/dirwatch"
)

// Clock is the daemon's clock. A release build has no skew hook
// (skew_debug.go).
type Clock struct{}

// New is the clock; a release build has no skew, skewFile is not read.
func New(string) *Clock { return &Clock{} }

func (*Clock) Now() time.Time { return time.Now() }

func (*Clock) Refresh() {}

func (*Clock) Changed() <-chan struct{} { return nil }

func (*Clock) Watch(context.Context, *dirwatch.Hub, *slog.Logger) {}
