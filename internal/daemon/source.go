package daemon

import (
	"context"
	"sync"

	"github.com/mcpwatchdog/watchdog/internal/supervise"
)

// A source is one producer of what the loop applies: a log follower, a
// store, a host's process, the beacons, the client module, the config
// file, the hosts on the machine. It watches its one thing until ctx ends
// and hands the loop each observation through emit, which reports false
// once the daemon stops (the source then returns). Adding one is a file
// with its type and a line in sourcesOf; the supervisor (supervise.Run)
// starts it again after a failure.
type source = supervise.Source[item]

// emitFunc hands the loop one observation; false: the daemon stops.
type emitFunc = func(item) bool

// emitter is the one emitFunc every source gets: log lines (an item with a
// position to acknowledge) go to their own queue, which the loop stops
// reading while the journal fails; time's (the clock's, the tray's
// refresh, the journal's retry) to their own, which the loop reads whatever the journal does;
// everything else to the items'.
func (d *daemon) emitter(ctx context.Context) emitFunc {
	return func(it item) bool {
		switch it.(type) {
		case lineIn:
			return d.sendLine(ctx, it)
		case tickIn, wokeIn, refreshIn, journalRetryIn:
			return sendTo(ctx, d.in.ticks, it)
		}
		return d.send(ctx, it)
	}
}

// startSource runs src under the supervisor in a goroutine owned by wg
// and stopped by ctx.
func (d *daemon) startSource(ctx context.Context, wg *sync.WaitGroup, src source) {
	supervise.Start(ctx, wg, d.log, src, d.emitter(ctx))
}
