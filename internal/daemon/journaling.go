package daemon

import (
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/journal"
	"github.com/mcpwatchdog/watchdog/internal/stream"
	"github.com/mcpwatchdog/watchdog/monitor/follow"
)

// JournalFaultEnv names a file whose existence makes every journal write
// fail (the journal's fault drill). Only a build with the watchdogdebug
// tag reads it: the chaos soak's drill (it runs as root, whom permissions
// do not stop, and a full disk would disturb every other process). The
// shipped binary has no such hook.
const JournalFaultEnv = "WATCHDOG_DEBUG_JOURNAL_FAULT_FILE"

// Retries of a journal that cannot be written: capped exponential backoff.
// No jitter: one process retrying its own file has nobody to collide with.
// The cap is short: a failed write costs one syscall, and every second of
// it is a second the held events (and their bubbles) come late once the
// disk is back.
const (
	journalRetryFirst = 100 * time.Millisecond
	journalRetryMax   = time.Second
)

// journaler writes events to the journal in order. Once a write fails it
// holds that event and every later one, and the log positions acknowledged
// meanwhile, until the journal can be written again: nothing is
// acknowledged before it is journaled, so a restart replays what was held.
// The loop and the notifier both write; the retries are the loop's.
type journaler struct {
	j   *journal.Journal
	log *slog.Logger
	now func() time.Time // event times

	mu sync.Mutex
	// pending is not yet written, in order. While it is not empty the loop
	// reads no log lines; store changes, pings and ticks still come in (a
	// session born and gone in the outage must be known, see saveHeld),
	// up to maxHeldEvents.
	pending []health.Event
	held    []follow.Position // acks waiting for pending, in order
	out     outage
}

// outage is one spell of failed writes.
type outage struct {
	began   time.Time // monotonic: its length
	since   time.Time // the daemon's clock: what a restart reports
	err     error     // the latest failure
	delay   time.Duration
	next    time.Time // next retry
	written int       // held events written so far
	warned  bool      // the warning that ends it is made
}

func newJournaler(j *journal.Journal, log *slog.Logger, now func() time.Time) *journaler {
	return &journaler{j: j, log: log, now: now}
}

// maxHeldEvents bounds what an outage holds: past it the loop takes
// nothing more in, and the sources wait.
const maxHeldEvents = 4096

// write journals ev, or holds it behind events already held. It reports
// whether ev is in the journal now.
func (jr *journaler) write(ev health.Event) bool {
	jr.mu.Lock()
	defer jr.mu.Unlock()
	if len(jr.pending) > 0 {
		jr.pending = append(jr.pending, ev)
		return false
	}
	err := jr.j.Write(ev)
	switch {
	case err == nil:
		return true
	case errors.Is(err, journal.ErrUnencodable):
		// A retry would fail alike and hold up everything behind it.
		jr.log.Error("event cannot be journaled; dropped", "kind", ev.Kind, "err", err)
	default:
		jr.pending = []health.Event{ev}
		began := time.Now()
		jr.out = outage{began: began, since: jr.now(), err: err, delay: journalRetryFirst, next: began.Add(journalRetryFirst)}
		jr.log.Error("journal write failed; holding events and log acknowledgements until it can be written",
			"kind", ev.Kind, "err", err)
	}
	return false
}

// failing reports whether events are held.
func (jr *journaler) failing() bool {
	jr.mu.Lock()
	defer jr.mu.Unlock()
	return len(jr.pending) > 0
}

// full reports whether the outage holds all it may.
func (jr *journaler) full() bool {
	jr.mu.Lock()
	defer jr.mu.Unlock()
	return len(jr.pending) >= maxHeldEvents
}

// hold keeps p for later when events are held (true), so that it is
// acknowledged only after them.
func (jr *journaler) hold(p follow.Position) bool {
	jr.mu.Lock()
	defer jr.mu.Unlock()
	if len(jr.pending) == 0 {
		return false
	}
	jr.held = append(jr.held, p)
	return true
}

// retryAt is when held events are due another try; false: none held.
func (jr *journaler) retryAt() (time.Time, bool) {
	jr.mu.Lock()
	defer jr.mu.Unlock()
	return jr.out.next, len(jr.pending) > 0
}

// retry writes the held events in order when due (or now, with force),
// then the warning that ends the outage. It returns the events it wrote,
// and the positions that may be acknowledged now: all held ones once
// everything is written, else none.
func (jr *journaler) retry(force bool) (acks []follow.Position, written []health.Event) {
	jr.mu.Lock()
	defer jr.mu.Unlock()
	if len(jr.pending) == 0 || !force && time.Now().Before(jr.out.next) {
		return nil, nil
	}
	written, ok := jr.flush(nil)
	if !ok {
		return nil, written
	}
	if !jr.out.warned {
		jr.out.warned = true
		jr.pending = append(jr.pending, jr.recovered())
		if written, ok = jr.flush(written); !ok {
			return nil, written
		}
	}
	jr.log.Info("journal written again; releasing held log acknowledgements",
		"held_events", jr.out.written, "acks", len(jr.held))
	acks = jr.held
	jr.held, jr.out = nil, outage{}
	return acks, written
}

// flush writes pending in order until one fails, which sets the next try;
// it adds what it wrote to written.
func (jr *journaler) flush(written []health.Event) ([]health.Event, bool) {
	for len(jr.pending) > 0 {
		ev := jr.pending[0]
		err := jr.j.Write(ev)
		if err != nil && !errors.Is(err, journal.ErrUnencodable) {
			jr.out.err = err
			jr.out.delay = min(2*jr.out.delay, journalRetryMax)
			jr.out.next = time.Now().Add(jr.out.delay)
			jr.log.Debug("journal still cannot be written", "held", len(jr.pending), "retry_in", jr.out.delay, "err", err)
			return written, false
		}
		if err != nil {
			jr.log.Error("event cannot be journaled; dropped", "kind", ev.Kind, "err", err)
		} else {
			written = append(written, ev)
		}
		jr.pending = jr.pending[1:]
		jr.out.written++
	}
	return written, true
}

// recovered is the warning that says the journal had a gap in time (not
// in content): how long, why, and how many held events it now holds.
func (jr *journaler) recovered() health.Event {
	took := time.Since(jr.out.began).Round(time.Millisecond)
	return health.Event{Time: jr.now(), Kind: health.EvWarning,
		Extra: map[string]any{"unwritable_ms": took.Milliseconds(), "held_events": jr.out.written, "error": jr.out.err.Error()},
		Detail: fmt.Sprintf("the journal could not be written for %s (%v); the %d event(s) held meanwhile are now written, in order",
			took, jr.out.err, jr.out.written)}
}

// current is the outage under way, as the private state keeps it (nil:
// none), so that a start after a kill -9 can report one whose warning
// never came.
func (jr *journaler) current() *savedOutage {
	jr.mu.Lock()
	defer jr.mu.Unlock()
	if len(jr.pending) == 0 {
		return nil
	}
	return &savedOutage{Since: jr.out.since, Error: jr.out.err.Error()}
}

// unwritten is what is still held: events and acks.
func (jr *journaler) unwritten() (events []health.EventKind, acks int) {
	jr.mu.Lock()
	defer jr.mu.Unlock()
	for _, ev := range jr.pending {
		events = append(events, ev.Kind)
	}
	return events, len(jr.held)
}

// intake is the loop's source of items other than log lines: they keep
// coming while events are held (their changes are saved for a restart to
// judge again), until the outage holds all it may.
func (d *daemon) intake() <-chan item {
	if d.journal.w.full() {
		return nil
	}
	return d.in.items
}

// lineIntake is the loop's source of log lines: none while events are
// held, so nothing is read past what is journaled and acknowledged.
func (d *daemon) lineIntake() <-chan item {
	if d.journal.w.failing() {
		return nil
	}
	return d.in.lines
}

// retryJournal writes what is held when due (or now, with force), tells
// what it wrote, and acknowledges the positions that waited for it.
func (d *daemon) retryJournal(force bool) {
	acks, written := d.journal.w.retry(force)
	for _, ev := range written {
		d.tell(ev)
	}
	for _, p := range acks {
		d.src.follower.Ack(p)
	}
	if len(written) > 0 && !d.journal.w.failing() {
		d.saveTracked(false) // at once: the saved outage is over
	}
}

// acknowledge acks p now, or after the events held before it.
func (d *daemon) acknowledge(p follow.Position) {
	if !d.journal.w.hold(p) {
		d.src.follower.Ack(p)
	}
}

// reportUnwritten says, at the stop, what could not be journaled: its log
// lines stay unacknowledged and are read again at the next start.
func (d *daemon) reportUnwritten() {
	events, acks := d.journal.w.unwritten()
	if len(events) == 0 {
		return
	}
	d.log.Error("stopping with events the journal could not take; their log lines were not acknowledged, "+
		"so the next start will replay them (store changes are judged again too: the tracked sessions were not saved)",
		"events", events, "held_acks", acks)
}

func (d *daemon) emit(evs []health.Event) {
	for _, ev := range evs {
		ok, warnings := d.journal.limit.Admit(ev, ev.Time)
		for _, w := range warnings {
			d.record(w)
		}
		if ok {
			d.record(ev)
		} else {
			d.events.Publish(stream.Said{Ev: ev}) // counted all the same
		}
	}
	if len(evs) > 0 {
		d.gauges(d.now())
		d.refreshFace()
	}
}

// record journals ev and publishes it: said, and journaled once it is.
func (d *daemon) record(ev health.Event) {
	written := d.journal.w.write(ev)
	d.log.Info(ev.Detail, "kind", ev.Kind, "server", ev.Server)
	d.events.Publish(stream.Said{Ev: ev})
	if written {
		d.tell(ev)
	}
}

// tell publishes an event the journal took. In an outage the tray still
// shows the state; the bubbles follow once the journal takes the events.
func (d *daemon) tell(ev health.Event) { d.events.Publish(stream.Journaled{Ev: ev}) }
