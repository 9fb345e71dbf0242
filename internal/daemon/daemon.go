package daemon

import (
	"context"
	"log/slog"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/mcpwatchdog/watchdog/healer"
	"github.com/mcpwatchdog/watchdog/healer/clientpatch"
	"github.com/mcpwatchdog/watchdog/healer/proxy"
	"github.com/mcpwatchdog/watchdog/internal/config"
	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/journal"
	"github.com/mcpwatchdog/watchdog/internal/metrics"
	"github.com/mcpwatchdog/watchdog/internal/notify"
	"github.com/mcpwatchdog/watchdog/monitor/beacon"
	"github.com/mcpwatchdog/watchdog/monitor/dirwatch"
	"github.com/mcpwatchdog/watchdog/monitor/follow"
	"github.com/mcpwatchdog/watchdog/monitor/hosts"
	"github.com/mcpwatchdog/watchdog/monitor/proc"
	"github.com/mcpwatchdog/watchdog/tray"
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

// item is one thing for the daemon loop: a signal, a follower position to
// acknowledge once the signal's events are journaled, or both.
type item struct {
	sig    *health.Signal
	ack    *follow.Position
	client *clientpatch.Look // a look at the client module
	// beacons: the live patched clients' beacons changed.
	beacons *beacon.Update
	// alive names the server whose own log wrote a new line: a sign of
	// life for the liveness schedule.
	alive string
	// reload: the config file changed (watchConfig).
	reload *reload
	// hosts: a look at the hosts on this machine (watchHosts).
	hosts *[]hosts.Found
	// emit: events an action off the loop journals (the tray's Protect).
	emit []health.Event
	// adopted: the adoption record may have changed (watchAdopted).
	adopted bool
	// from: the watched host sig came from (its process watcher, its log,
	// a heal of its); nil for the servers' and the rest (route).
	from *hostWatch
}

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

// daemon owns the model: one goroutine (loop) applies every signal in
// order, journals the events, then acknowledges the log positions.
type daemon struct {
	cfg config.Config
	// next is the config a changed file loaded to; cancelRun ends this run
	// so that Serve starts the next with it.
	next        *config.Config
	cancelRun   context.CancelFunc
	stateDir    string
	log         *slog.Logger
	watched     []*hostWatch // the configured hosts, the main one first
	journal     *journal.Journal
	jr          *journaler    // writes to journal; holds events and acks while it fails
	limit       *journalLimit // bounds the session events a flood may journal
	follower    *follow.Follower
	dirs        *dirwatch.Hub // the directory watch the sources share; nil: each has its own
	proxiesMu   sync.Mutex
	proxies     map[string]*proxy.Proxy // by server: the proxies served
	proxySecret string                  // the first segment of every proxy's path
	refused     refusals                // listeners' refusals of other users, journaled once
	items       chan item               // everything but log lines
	lines       chan item               // log lines: each carries a position to acknowledge
	queries     chan query
	now         func() time.Time
	live        *healer.Liveness // when each server's sessionless check is due; nil before Serve
	warmOn      map[string]bool  // servers whose host session is kept warm
	pinger      *healer.Pinger
	metrics     *metrics.Metrics
	work        sync.WaitGroup   // the loop's work done off it (tray actions, restarts)
	client      clientpatch.Look // the latest look at the client module
	clientSeen  bool
	opts        Options
	notifier    *notify.Notifier // nil when notifications are off
	autostartOn bool             // start at login, for the tray's checkbox
	tracked     trackedSaver     // the tracked sessions, kept for a restart
	clock       *wallClock
	storesRead  <-chan struct{}      // closed once every configured store was read once
	verified    map[string]time.Time // server+session → last verifying ping
	knownHost   chan proc.Host       // a live beacon's writer, for the process watcher
	lastBeacons *beacon.Update       // the beacons as last read: applied again when the host changes
	found       []health.HostSummary // the hosts found on this machine (watchHosts)
	buttons     chan tray.Command    // buttons pressed on the notifications
}

// newDaemon builds the daemon; secret is the proxies' (proxy.LoadSecret),
// "" when no server has a proxy_listen.
func newDaemon(cfg config.Config, stateDir, secret string, opts Options, j *journal.Journal) *daemon {
	warmOn := map[string]bool{}
	for _, s := range cfg.Servers {
		warmOn[s.Name] = s.KeepWarm
	}
	d := &daemon{cfg: cfg, stateDir: stateDir, log: opts.Logger, opts: opts, watched: newHostWatches(cfg, secret), journal: j,
		items: make(chan item, 1024), lines: make(chan item, 1024), queries: make(chan query),
		limit:   newJournalLimit(),
		proxies: map[string]*proxy.Proxy{}, proxySecret: secret,
		knownHost: make(chan proc.Host, 1),
		buttons:   make(chan tray.Command, 8),
		warmOn:    warmOn, verified: map[string]time.Time{}}
	d.metrics = newMetrics(cfg, func(uid int) { d.peerRefused("", "the metrics endpoint", uid) })
	d.clock = newWallClock(opts.ClockSkewFile)
	d.now = d.clock.now
	d.jr = newJournaler(j, d.log, d.now)
	d.autostartOn = opts.Tray != nil && autostartEnabled()
	for _, h := range d.watched {
		h.heal = newHealing(d, h)
	}
	d.tracked.path = filepath.Join(stateDir, trackedName)
	return d
}

// send hands an item to the loop, or gives up when the daemon stops.
func (d *daemon) send(ctx context.Context, it item) bool { return sendTo(ctx, d.items, it) }

// sendLine hands a log line's item to the loop, or gives up when the
// daemon stops.
func (d *daemon) sendLine(ctx context.Context, it item) bool { return sendTo(ctx, d.lines, it) }

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

func (d *daemon) signal(ctx context.Context, sig health.Signal) bool {
	return d.send(ctx, item{sig: &sig})
}

func (d *daemon) loop(ctx context.Context) {
	wake := time.NewTimer(0)
	defer wake.Stop()
	var faceTick <-chan time.Time // only with a tray
	if d.opts.Tray != nil {
		face := time.NewTicker(faceEvery)
		defer face.Stop()
		faceTick = face.C
	}
	d.refreshFace()
	clock := newWakeDetector(d.now())
	d.checkLiveness(ctx)
	tickAt := d.now() // when time alone next makes something due
	for {
		force, timed := false, false
		select {
		case <-ctx.Done():
			return
		case it := <-d.intake():
			d.handle(ctx, it)
		case it := <-d.lineIntake():
			d.handle(ctx, it)
		case <-d.journalRetry():
			d.retryJournal(false)
		case <-wake.C:
			force, timed = d.timeJobs(ctx, clock), true
			d.checkLiveness(ctx)
		case <-d.clock.changed(): // a debug build's clock skew moved
			force, timed = d.timeJobs(ctx, clock), true
			d.checkLiveness(ctx)
		case <-faceTick:
			d.refreshFace()
		case cmd := <-d.trayCommands():
			d.command(ctx, cmd)
		case cmd := <-d.buttons:
			d.command(ctx, cmd)
		case q := <-d.queries:
			q.reply <- d.answer(ctx, q)
		}
		// One timer for everything time makes due: keep-warm pings, the
		// model's deadlines, liveness checks; nothing wakes without one.
		// The model's deadlines cost a pass over every session, so they are
		// worked out on timed wakes only; what came in meanwhile is looked
		// at within tickAfterActivity, as the old one-second tick did.
		now := d.now()
		if timed {
			tickAt = now.Add(d.nextTick(now))
		} else {
			tickAt = minTime(tickAt, now.Add(tickAfterActivity))
		}
		// The floor also bounds waits measured on a wall clock set back.
		next := min(d.keepWarm(ctx, now, force), max(tickAt.Sub(now), 0), d.livenessIn(now), wakeFloor)
		wake.Reset(max(next, minWake))
	}
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// timeJobs does what time alone makes due, and reports whether the loop
// found the machine back from a sleep (keep-warm then pings at once).
func (d *daemon) timeJobs(ctx context.Context, clock *wakeDetector) (woke bool) {
	d.clock.refresh()
	now := d.now()
	if gap, woke := clock.observe(now); woke {
		d.apply(ctx, health.Signal{Kind: health.SigWoke, Gap: gap})
		return true
	}
	for _, h := range d.watched {
		d.emitFrom(h, h.model.Tick(now))
	}
	d.emit(d.limit.lifted(now))
	d.saveTracked(false)
	d.gauges(now)
	d.noteHealth(now)
	d.retryRestarts(ctx, now)
	return false
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
	if at, ok := d.limit.nextLift(); ok && at.Before(next) {
		next = at
	}
	if wait, ok := d.restartWait(now); ok && now.Add(wait).Before(next) {
		next = now.Add(wait)
	}
	return max(next.Sub(now), 0)
}

func (d *daemon) handle(ctx context.Context, it item) {
	if it.sig != nil {
		d.applyFrom(ctx, it.from, *it.sig)
		if it.from == nil || it.from.main {
			d.hostChanged(ctx, *it.sig)
		}
		d.saveTracked(false)
	}
	if it.client != nil {
		d.noteClient(*it.client)
		d.healWaiting(ctx)
	}
	if it.alive != "" && d.live != nil {
		d.live.Alive(it.alive, d.now())
	}
	if it.beacons != nil {
		d.applyBeacons(ctx, *it.beacons)
	}
	if it.ack != nil && d.follower != nil {
		d.acknowledge(*it.ack)
	}
	if it.reload != nil {
		d.takeReload(*it.reload)
	}
	if it.hosts != nil {
		d.noteHosts(*it.hosts)
	}
	if it.adopted {
		d.tellAdoptions()
	}
	if len(it.emit) > 0 {
		for i := range it.emit {
			it.emit[i].Time = d.now()
		}
		d.emit(it.emit)
	}
}

// status is the models' view plus what only the daemon knows.
func (d *daemon) status() health.Status {
	st := d.modelStatus(d.now())
	st.Hosts = d.hostSummaries()
	st.Host.Patch = patchLabel(d.client.Status.State)
	if !d.mainHost().prof.Patchable() {
		st.Host.Patch = string(healer.PatchNone)
	}
	d.addProxySessions(&st)
	return st
}

func patchLabel(s clientpatch.State) string {
	switch s {
	case clientpatch.StateApplied, clientpatch.StateUnpatched, clientpatch.StateModified, clientpatch.StateUnsupported:
		return string(s)
	}
	return "unknown"
}

// apply feeds a signal to the models route gives it to, journals their
// events and reacts to them (a new incident starts the heal ladder).
func (d *daemon) apply(ctx context.Context, sig health.Signal) { d.applyFrom(ctx, nil, sig) }

// applyFrom is apply for a signal that came from one host (nil: none).
func (d *daemon) applyFrom(ctx context.Context, from *hostWatch, sig health.Signal) {
	d.noteLife(sig)
	for _, r := range d.route(sig, from) {
		evs := r.h.model.Apply(r.sig, d.now())
		evs = d.emitFrom(r.h, evs)
		d.react(ctx, r.h, evs)
		d.lookForHost(r.h, evs)
		if r.h.main {
			d.tuneProxies(evs)
		}
	}
}

// emitFrom journals what h's model said, less what only the main host's
// model speaks of (serversOwn), and returns what it journaled.
func (d *daemon) emitFrom(h *hostWatch, evs []health.Event) []health.Event {
	if !h.main {
		evs = slices.DeleteFunc(evs, serversOwn)
	}
	d.emit(evs)
	return evs
}

func (d *daemon) emit(evs []health.Event) {
	for _, ev := range evs {
		ok, warnings := d.limit.admit(ev, ev.Time)
		for _, w := range warnings {
			d.record(w)
		}
		if ok {
			d.record(ev)
		} else {
			d.metrics.Observe(ev) // counted all the same
		}
	}
	if len(evs) > 0 {
		d.gauges(d.now())
		d.refreshFace()
	}
}

// record journals ev and tells it.
func (d *daemon) record(ev health.Event) {
	written := d.jr.write(ev)
	d.log.Info(ev.Detail, "kind", ev.Kind, "server", ev.Server)
	d.metrics.Observe(ev)
	if written {
		d.tell(ev)
	}
}

// tell hands a journaled event to the notifier. Only journaled ones: a
// bubble for an event a kill -9 then lost would tell what the journal,
// and a restart's redelivery, know nothing of. In an outage the tray still
// shows the state; the bubbles follow once the journal takes the events.
func (d *daemon) tell(ev health.Event) {
	if d.notifier != nil {
		d.notifier.Observe(ev)
	}
}

// saveTracked keeps the tracked sessions for the next start; a failure is
// logged, not fatal: only sessions ending during a restart go unreported.
// While the journal holds events, the save keeps what the journal does not
// have yet to be judged again (saveHeld).
func (d *daemon) saveTracked(force bool) {
	save := func() error { return d.tracked.save(d.privateState(), d.now(), force) }
	if d.jr.failing() {
		save = func() error { return d.tracked.saveHeld(d.privateState()) }
	}
	if err := save(); err != nil {
		d.log.Warn("cannot save the tracked sessions", "err", err)
	}
}

// privateState is what the next start needs with full ids.
func (d *daemon) privateState() privateState {
	st := privateState{servers: map[string][]health.StoreSession{}, incidents: map[string]savedIncident{}, outage: d.jr.current()}
	for _, h := range d.watched {
		for server, list := range h.model.Tracked() {
			st.servers[server] = append(st.servers[server], list...)
		}
		for _, s := range d.cfg.Servers {
			if id, since, open := h.model.Incident(s.Name); open && id != "" {
				st.incidents[incidentKey(h, s.Name)] = savedIncident{Session: id, Since: since}
			}
		}
	}
	return st
}

func (d *daemon) answer(ctx context.Context, q query) queryReply {
	if !q.heal {
		return queryReply{status: d.status()}
	}
	taken, err := d.healNow(ctx, q.server)
	return queryReply{status: d.status(), actions: taken, err: err}
}
