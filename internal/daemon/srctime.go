package daemon

import (
	"context"
	"log/slog"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/wallclock"
	"github.com/mcpwatchdog/watchdog/monitor/dirwatch"
)

// timeSource is time as a source: it tells the loop when time alone makes
// something due (tickIn), or that the machine came back from a sleep or
// the wall clock jumped (wokeIn, with the signed gap). It does not decide
// when: after each pass the loop works out the next deadline (the models',
// keep-warm's, the liveness checks', wakeFloor) and hands it over
// (timing.publish), so nothing wakes more often, and nothing due waits
// longer, than with a timer of the loop's own.
type timeSource struct {
	clock *wallclock.Clock
	next  <-chan nextWake
	// sent counts the ticks emitted, across the supervisor's restarts: a
	// deadline worked out before the loop took the last one is stale.
	sent uint64
}

// nextWake is the wait the loop asks for, after the tick it last took.
type nextWake struct {
	after time.Duration
	seq   uint64 // the last tick the loop took
}

// tickIn: time alone made something due (the models' deadlines, a limit
// lifting, a restart allowed again, keep-warm pings, liveness checks).
type tickIn struct{ seq uint64 }

// wokeIn: the wall clock ran apart from the monotonic one (a sleep, or the
// clock set): the models hear health.Woke and keep-warm pings at once.
type wokeIn struct {
	seq uint64
	gap time.Duration
}

func (s *timeSource) Name() string { return "time" }

// run starts with a tick at once, as the loop's first pass always looked
// at time, then waits for the deadline the loop asks for, or a debug
// build's clock skew moving.
func (s *timeSource) Run(ctx context.Context, emit emitFunc) error {
	wake := wallclock.NewWakeDetector(s.clock.Now())
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case n := <-s.next:
			if n.seq == s.sent {
				t.Reset(n.after)
			}
		case <-t.C:
			if !s.tick(wake, emit) {
				return nil
			}
		case <-s.clock.Changed():
			t.Stop() // until the loop says when next
			if !s.tick(wake, emit) {
				return nil
			}
		}
	}
}

// tick reads the clock (a debug skew may have moved) and emits what time
// says; false: the daemon stops.
func (s *timeSource) tick(wake *wallclock.WakeDetector, emit emitFunc) bool {
	s.clock.Refresh()
	s.sent++
	if gap, woke := wake.Observe(s.clock.Now()); woke {
		return emit(wokeIn{seq: s.sent, gap: gap})
	}
	return emit(tickIn{seq: s.sent})
}

func (in tickIn) handleIn(ctx context.Context, d *daemon) {
	d.timeJobs(ctx)
	d.timing.took(in.seq, false)
}

func (in wokeIn) handleIn(ctx context.Context, d *daemon) {
	d.apply(ctx, health.Woke{Gap: in.gap})
	d.timing.took(in.seq, true)
}

// timing is the loop's side of time: what the last pass took, and where
// it hands the next deadline to the time source. Only the loop uses it.
type timing struct {
	clock  *wallclock.Clock
	next   latest[nextWake] // the time source's next wait
	tickAt time.Time        // when time alone next makes something due
	seq    uint64           // the last tick taken
	timed  bool             // this pass took a tick
	force  bool             // ... after a wake: keep-warm pings at once
	// retry: the same for the journal's retry timer (retrySource).
	retry    latest[retryWake]
	retrySeq uint64 // the last retry taken
}

func newTiming() timing {
	return timing{next: newLatest[nextWake](), retry: newLatest[retryWake]()}
}

func (t *timing) took(seq uint64, woke bool) {
	t.seq, t.timed, t.force = seq, true, woke
}

// publish hands the time source the next wait.
func (t *timing) publish(after time.Duration) {
	t.next.put(nextWake{after: after, seq: t.seq})
}

// timeSource is the time source, fed by the loop's timing.
func (d *daemon) timeSource() *timeSource {
	return &timeSource{clock: d.timing.clock, next: d.timing.next}
}

// latest is a one-deep mailbox from the loop to a source: the newest value
// replaces one the source has not taken yet, since only the newest counts
// (the next deadline, when held events are next due). Only the loop puts,
// so once the stale value is out the put cannot block.
type latest[T any] chan T

func newLatest[T any]() latest[T] { return make(latest[T], 1) }

func (l latest[T]) put(v T) {
	select {
	case <-l:
	default:
	}
	l <- v
}

// clockSource follows a debug build's clock skew file (the release build
// has none: its watch returns at once and the source is done).
type clockSource struct {
	clock *wallclock.Clock
	hub   *dirwatch.Hub
	log   *slog.Logger
}

func (s *clockSource) Name() string { return "clock" }

func (s *clockSource) Run(ctx context.Context, _ emitFunc) error {
	s.clock.Watch(ctx, s.hub, s.log)
	return nil
}
