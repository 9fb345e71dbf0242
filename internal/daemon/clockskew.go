package daemon

import (
	"context"
	"log/slog"

	"github.com/mcpwatchdog/watchdog/monitor/dirwatch"
)

// ClockSkewEnv names a file whose content (a Go duration such as "90s")
// is added to the daemon's wall clock. Only a build with the
// watchdogdebug tag reads it (clockskew_debug.go): the chaos soak's way
// to jump the daemon's clock without touching the machine's, which every
// other process would feel. The shipped binary has no such hook.
const ClockSkewEnv = "WATCHDOG_DEBUG_CLOCK_SKEW_FILE"

// clockSource follows a debug build's clock skew file (the release build
// has none: its watch returns at once and the source is done).
type clockSource struct {
	clock *wallClock
	hub   *dirwatch.Hub
	log   *slog.Logger
}

func (s *clockSource) name() string { return "clock" }

func (s *clockSource) run(ctx context.Context, _ emitFunc) error {
	s.clock.watch(ctx, s.hub, s.log)
	return nil
}
