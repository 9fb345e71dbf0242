package daemon

import (
	"context"
	"time"

	"github.com/mcpwatchdog/watchdog/healer/clientpatch"
	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/host/find"
	"github.com/mcpwatchdog/watchdog/monitor/beacon"
	"github.com/mcpwatchdog/watchdog/monitor/follow"
)

// The loop sleeps until the earliest thing due, within these bounds.
const (
	// wakeFloor is the longest it sleeps. Timers run on the monotonic
	// clock, which stops while the machine is suspended, so a resume is
	// noticed at the next wake: this bounds how late that is (keep-warm
	// pings at once after a wake).
	// The same in every build: a debug clock skew is watched, not polled.
	wakeFloor = 10 * time.Second
	// minWake coalesces: the loop never wakes sooner than this for time.
	minWake = 20 * time.Millisecond
	// tickAfterActivity: after a signal, the model's deadlines are looked
	// at again within this long (a signal may bring one nearer).
	tickAfterActivity = time.Second
	// hostCheckPause: after a look at a host found gone, the next one.
	hostCheckPause = time.Second
)

// item is one thing for the daemon loop, typed per kind: the kinds are
// the types below, each handled by its own method (sealed: only this
// package's types handle).
type item interface {
	handleIn(ctx context.Context, d *daemon)
}

// signalIn is an observation for the models; from is the watched host it
// came from (its process watcher, a heal of its), nil for the servers' and
// the rest (route).
type signalIn struct {
	o    health.Observation
	from *hostWatch
}

// lineIn is a followed log line: its observation when it has one (nil:
// none), the server
// whose own log wrote it (a sign of life for the liveness schedule), and
// the position to acknowledge once what it said is journaled.
type lineIn struct {
	o     health.Observation
	from  *hostWatch
	alive string
	ack   follow.Position
}

// clientIn is a look at the client module.
type clientIn struct{ look clientpatch.Look }

// beaconsIn: the live patched clients' beacons changed.
type beaconsIn struct{ u beacon.Update }

// reloadIn: the config file changed (configSource).
type reloadIn struct{ r reload }

// hostsIn is a look at the hosts on this machine (hostsSource).
type hostsIn struct{ found []find.Found }

// eventsIn are events an action off the loop journals (the tray's Protect).
type eventsIn struct{ evs []health.Event }

// adoptedIn: the adoption record may have changed (adoptedSource).
type adoptedIn struct{}

// autostartIn is whether start at login is on, after the tray changed it.
type autostartIn struct{ on bool }

// query asks the loop for something only the model knows.
type query struct {
	heal   bool
	server string
	reply  chan queryReply
}

type queryReply struct {
	status  health.Status
	actions map[string]string // heal: server → what was done
	err     error
}

// send hands an item to the loop, or gives up when the daemon stops.
func (d *daemon) send(ctx context.Context, it item) bool { return sendTo(ctx, d.in.items, it) }

// sendLine hands a log line's item to the loop, or gives up when the
// daemon stops.
func (d *daemon) sendLine(ctx context.Context, it item) bool { return sendTo(ctx, d.in.lines, it) }

func sendTo(ctx context.Context, ch chan<- item, it item) bool {
	if ctx.Err() != nil {
		return false // else a source with lines to spare wins half the races against the stop
	}
	select {
	case ch <- it:
		return true
	case <-ctx.Done():
		return false
	}
}

// signal hands the loop an observation from no host in particular.
func (d *daemon) signal(ctx context.Context, o health.Observation) bool {
	return d.send(ctx, signalIn{o: o})
}

func (d *daemon) loop(ctx context.Context) {
	d.refreshFace()
	d.pings.checkLiveness(ctx, d.watched, d.now())
	d.timing.tickAt = d.now()
	d.timing.publishRetry(d.journal.w.retryAt())
	for {
		select {
		case <-ctx.Done():
			return
		case it := <-d.intake():
			d.handle(ctx, it)
		case it := <-d.lineIntake():
			d.handle(ctx, it)
		case it := <-d.in.ticks:
			d.handle(ctx, it)
		case q := <-d.in.queries:
			q.reply <- d.answer(ctx, q)
		}
		d.afterPass(ctx)
	}
}

// afterPass is the one place the loop acts after a pass: the actions the
// models' state makes due (dueActions), then the next deadline handed to the
// time source: one for everything time makes due (keep-warm pings, the
// models' deadlines, liveness checks); nothing wakes without one.
// The models' deadlines cost a pass over every session, so they are
// worked out on timed passes only; what came in meanwhile is looked at
// within tickAfterActivity, as the old one-second tick did. They are read
// before the actions, which may tell a model its host is gone.
func (d *daemon) afterPass(ctx context.Context) {
	t := &d.timing
	timed, force := t.timed, t.force
	t.timed, t.force = false, false
	now := d.now()
	if timed {
		t.tickAt = now.Add(d.nextTick(now))
	} else {
		t.tickAt = minTime(t.tickAt, now.Add(tickAfterActivity))
	}
	// The floor also bounds waits measured on a wall clock set back.
	next := min(d.dueActions(ctx, now, timed, force), max(t.tickAt.Sub(now), 0), wakeFloor)
	t.publish(max(next, minWake))
	t.publishRetry(d.journal.w.retryAt())
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// timeJobs does what time alone makes due (a tickIn; a wake is wokeIn).
func (d *daemon) timeJobs(ctx context.Context) {
	now := d.now()
	for _, h := range d.watched {
		d.emitFrom(h, h.model.Tick(now))
	}
	d.emit(d.journal.limit.Lifted(now))
	d.saveTracked(false)
	d.gauges(now)
	d.watched.noteHealth(d.cfg.Servers, now, d.log)
	d.retryRestarts(ctx, now)
}

// nextTick is how long until time alone makes something due: the model's
// next deadline, a journal limit lifting, a refused restart allowed again;
// never longer than wakeFloor.
func (d *daemon) nextTick(now time.Time) time.Duration {
	next := now.Add(wakeFloor)
	for _, h := range d.watched {
		if at, ok := h.model.NextDeadline(now); ok && at.Before(next) {
			next = at
		}
	}
	if at, ok := d.journal.limit.NextLift(); ok && at.Before(next) {
		next = at
	}
	if wait, ok := d.watched.restartWait(now); ok && now.Add(wait).Before(next) {
		next = now.Add(wait)
	}
	return max(next.Sub(now), 0)
}

func (d *daemon) handle(ctx context.Context, it item) { it.handleIn(ctx, d) }

func (in signalIn) handleIn(ctx context.Context, d *daemon) { d.takeSignal(ctx, in.from, in.o) }

// takeSignal applies o from a host (nil: none) and saves what a
// restart needs of it.
func (d *daemon) takeSignal(ctx context.Context, from *hostWatch, o health.Observation) {
	d.applyFrom(ctx, from, o)
	if from == nil || from.main {
		d.hostChanged(ctx, o)
	}
	d.saveTracked(false)
}

func (in lineIn) handleIn(ctx context.Context, d *daemon) {
	if in.o != nil {
		d.takeSignal(ctx, in.from, in.o)
	}
	if in.alive != "" && d.pings.live != nil {
		d.pings.live.Alive(in.alive, d.now())
	}
	if d.src.follower != nil {
		d.acknowledge(in.ack)
	}
}

func (in clientIn) handleIn(ctx context.Context, d *daemon) {
	d.noteClient(in.look)
	d.healWaiting(ctx)
}

func (in autostartIn) handleIn(_ context.Context, d *daemon) {
	d.face.autostartOn = in.on
	d.refreshFace()
}

func (in beaconsIn) handleIn(ctx context.Context, d *daemon) { d.applyBeacons(ctx, in.u) }
func (in reloadIn) handleIn(_ context.Context, d *daemon)    { d.takeReload(in.r) }
func (in hostsIn) handleIn(_ context.Context, d *daemon) {
	d.noteHosts(in.found)
	d.followMachine(in.found)
}
func (adoptedIn) handleIn(_ context.Context, d *daemon) { d.tellAdoptions() }

func (in eventsIn) handleIn(_ context.Context, d *daemon) {
	for i := range in.evs {
		in.evs[i].Time = d.now()
	}
	d.emit(in.evs)
}
