package daemon

import (
	"context"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/health"
)

// announceSource is a whole new source in one file, as a new product one
// would be: a name, and a run that emits one typed observation (the
// server's announced idle timeout, as a log line would tell it) and then
// watches until the daemon stops. Its registration is one line in a
// test's Options.sources, as a product source's is in sourcesOf.
type announceSource struct {
	server  string
	timeout time.Duration
}

func (s announceSource) Name() string { return "test announcer" }

func (s announceSource) Run(ctx context.Context, emit emitFunc) error {
	o := health.IdleTimeoutAnnounced{LogLine: health.LogLine{Server: s.server, Detail: "announced by the test source"}, Timeout: s.timeout}
	emit(signalIn{o: o})
	<-ctx.Done()
	return nil
}
