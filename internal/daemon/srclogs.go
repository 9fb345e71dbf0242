package daemon

import (
	"context"
	"fmt"
	"sync"

	"github.com/mcpwatchdog/watchdog/internal/supervise"
	"github.com/mcpwatchdog/watchdog/monitor/follow"
)

// logSource is the followed logs: the follower reads them, the line
// reader classifies each line into an item with its position to
// acknowledge. A follower runs once: its failure is logged, not retried
// (the next start resumes from the journal's positions).
type logSource struct {
	f     *follow.Follower
	lines *lineReader
}

func (s *logSource) Name() string { return "logs" }

func (s *logSource) Run(ctx context.Context, emit emitFunc) error {
	var wg sync.WaitGroup
	wg.Go(func() { s.lines.run(emit, s.f.Lines()) })
	err := s.f.Run(ctx) // closes Lines when it ends
	wg.Wait()
	if err != nil && ctx.Err() == nil {
		return fmt.Errorf("%w: %w", supervise.ErrNoRestart, err)
	}
	return nil
}
