package daemon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"
)

// A source is one producer of what the loop applies: a log follower, a
// store, a host's process, the beacons, the client module, the config
// file, the hosts on the machine. It watches its one thing until ctx ends
// and hands the loop each observation through emit, which reports false
// once the daemon stops (the source then returns). Adding one is a file
// with its type and a line in sourcesOf; the supervisor does the rest.
type source interface {
	// name says which source a log line or a restart is about.
	name() string
	// run watches until ctx ends. It returns nil when it has nothing
	// (more) to watch: the source is done and not started again. An error
	// (or a panic) is a failure: the supervisor starts it again after a
	// backoff, as suture does a service whose Serve returned.
	run(ctx context.Context, emit emitFunc) error
}

// emitFunc hands the loop one observation; false: the daemon stops.
type emitFunc func(item) bool

// The supervisor's restart backoff: doubled per failure up to the cap,
// and back to the first once a run lasted longer than the cap (the failure
// was one spell, not a source that cannot start).
const (
	sourceRetryFirst = 100 * time.Millisecond
	sourceRetryMax   = 30 * time.Second
)

// errNoRestart marks a failure a restart cannot mend (a source's config):
// it is logged and the source is not started again.
var errNoRestart = errors.New("not started again")

// errSourcePanic wraps a source's panic so that it is logged and retried as
// a failure instead of taking the daemon down.
var errSourcePanic = errors.New("source panicked")

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
	emit := d.emitter(ctx)
	goRun(wg, func() { supervise(ctx, d.log, src, emit) })
}

// supervise runs src until ctx ends or it is done, starting it again
// after each failure with a capped exponential backoff.
func supervise(ctx context.Context, log *slog.Logger, src source, emit emitFunc) {
	delay := sourceRetryFirst
	for {
		began := time.Now()
		err := runGuarded(ctx, src, emit)
		if ctx.Err() != nil {
			return
		}
		if err == nil {
			log.Debug("source done", "source", src.name())
			return
		}
		if errors.Is(err, errNoRestart) {
			log.Warn("source failed", "source", src.name(), "err", err)
			return
		}
		if time.Since(began) > sourceRetryMax {
			delay = sourceRetryFirst
		}
		log.Warn("source failed; starting it again", "source", src.name(), "in", delay, "err", err)
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		delay = min(2*delay, sourceRetryMax)
	}
}

// runGuarded is one run of src, a panic turned into its error.
func runGuarded(ctx context.Context, src source, emit emitFunc) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: %v", errSourcePanic, r)
		}
	}()
	return src.run(ctx, emit)
}
