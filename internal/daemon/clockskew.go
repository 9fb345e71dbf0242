package daemon

import (
	"context"
	"log/slog"

	"github.com/mcpwatchdog/watchdog/internal/wallclock"
	"github.com/mcpwatchdog/watchdog/monitor/dirwatch"
)

// clockSource follows a debug build's clock skew file (the release build
// has none: its watch returns at once and the source is done).
type clockSource struct {
	clock *wallclock.Clock
	hub   *dirwatch.Hub
	log   *slog.Logger
}

func (s *clockSource) name() string { return "clock" }

func (s *clockSource) run(ctx context.Context, _ emitFunc) error {
	s.clock.Watch(ctx, s.hub, s.log)
	return nil
}
