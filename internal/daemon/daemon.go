package daemon

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/mcpwatchdog/watchdog/healer"
	"github.com/mcpwatchdog/watchdog/healer/clientpatch"
	"github.com/mcpwatchdog/watchdog/internal/config"
	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/journal"
	"github.com/mcpwatchdog/watchdog/internal/metrics"
	"github.com/mcpwatchdog/watchdog/internal/proxyproc"
	"github.com/mcpwatchdog/watchdog/internal/sockact"
	"github.com/mcpwatchdog/watchdog/internal/stream"
	"github.com/mcpwatchdog/watchdog/internal/wallclock"
	"github.com/mcpwatchdog/watchdog/monitor/proc"
	"github.com/mcpwatchdog/watchdog/tray"
)

// daemon owns the model: one goroutine (loop) applies every signal the
// sources emit (source.go) in order, journals the events, publishes them
// to the faces (stream.go), then acknowledges the log positions.
type daemon struct {
	cfg      config.Config
	run      runState
	stateDir string
	log      *slog.Logger
	watched  watchList // the configured hosts, the main one first
	journal  journaling
	src      sources
	proxies  *proxyproc.Set
	listen   listening
	in       intake
	timing   timing // the loop's side of time (timeSource), and the wall clock
	metrics  *metrics.Metrics
	events   *stream.Stream // the faces' one stream of events
	opts     Options
	pings    pings          // the requests the daemon makes itself
	client   clientWatch    // the main host's patched client
	face     face           // what the tray and the notifications show
	reports  *reportSource  // what the actions off the loop report back
	stdio    *health.Stdios // the stdio servers supervisors run (srcstdio.go)
}

// listening is what the daemon's listeners share.
type listening struct {
	socks   *proxyproc.Sockets // the proxies' and the control socket's, across runs
	refused refusals           // refusals of other users, journaled once
}

// runState ends this run of the daemon for the next config.
type runState struct {
	// next is the config a changed file loaded to; cancel ends this run so
	// that Serve starts the next with it.
	next   *config.Config
	cancel context.CancelFunc
}

// intake is what the loop reads: items, log lines, queries.
type intake struct {
	items   chan item // everything but log lines
	lines   chan item // log lines: each carries a position to acknowledge
	ticks   chan item // time's (timeSource, refreshSource, retrySource): read while the journal fails, as time goes on
	queries chan query
}

// journaling writes the journal, within the limits a flood meets.
type journaling struct {
	w     *journaler     // writes to the journal; holds events and acks while it fails
	limit *journal.Limit // bounds the session events a flood may journal
	// tracked saves the tracked sessions for a restart: the state the
	// journal agrees with.
	tracked trackedSaver
}

// newDaemon builds the daemon; secret is the proxies' (proxy.LoadSecret),
// "" when no server has a proxy_listen.
func newDaemon(cfg config.Config, stateDir, secret string, opts Options, j *journal.Journal) *daemon {
	warmOn := map[string]bool{}
	for _, s := range cfg.Servers {
		warmOn[s.Name] = s.KeepWarm
	}
	d := &daemon{cfg: cfg, stateDir: stateDir, log: opts.Logger, opts: opts, watched: newHostWatches(cfg, secret),
		in:      intake{items: make(chan item, 1024), lines: make(chan item, 1024), ticks: make(chan item), queries: make(chan query)},
		timing:  newTiming(),
		journal: journaling{limit: journal.NewLimit()},
		proxies: proxyproc.NewSet(secret),
		listen:  listening{socks: proxyproc.NewSockets(sockact.Set{})},
		client:  clientWatch{known: make(chan proc.Host, 1)},
		face:    face{buttons: make(chan tray.Command, 8)},
		reports: newReportSource(),
		pings:   pings{warmOn: warmOn, verified: map[string]time.Time{}},
		stdio:   health.NewStdios()}
	d.metrics = newMetrics(cfg, func(uid int) { d.peerRefused("", "the metrics endpoint", uid) })
	d.metrics.WatchProxies(d.proxies.Paths)
	d.events = stream.New(d.facesOf(nil)...) // until serve starts its own
	d.timing.clock = wallclock.New(opts.skewFile())
	d.journal.w = newJournaler(j, d.log, d.now)
	d.face.autostartOn = opts.Tray != nil && autostartEnabled()
	for _, h := range d.watched {
		h.heal = newHealing(d, h)
	}
	d.journal.tracked.path = filepath.Join(stateDir, trackedName)
	return d
}

// now is the daemon's time: the wall clock, moved by a debug build's skew.
func (d *daemon) now() time.Time { return d.timing.clock.Now() }

// status is the models' view plus what only the daemon knows.
func (d *daemon) status() health.Status {
	st := d.modelStatus(d.now())
	st.Hosts = d.hostSummaries()
	st.Host.Patch = patchLabel(d.client.look.Status.State)
	if !d.mainHost().prof.Patchable() {
		st.Host.Patch = string(healer.PatchNone)
	}
	listen := map[string]string{}
	for _, s := range d.cfg.Servers {
		listen[s.Name] = s.ProxyListen
	}
	d.proxies.AddProxies(&st, listen)
	st.Servers = append(st.Servers, d.stdio.Status()...)
	st.Daemon = &health.DaemonStatus{PID: os.Getpid(), ConfigFile: d.opts.ConfigFile, StateDir: d.stateDir, Sockets: d.listen.socks.From()}
	return st
}

func patchLabel(s clientpatch.State) string {
	switch s {
	case clientpatch.StateApplied, clientpatch.StateUnpatched, clientpatch.StateModified, clientpatch.StateUnsupported:
		return string(s)
	}
	return "unknown"
}

// apply feeds an observation to the models route gives it to, journals
// their events and reacts to them (a new incident starts the heal ladder).
func (d *daemon) apply(ctx context.Context, o health.Observation) {
	d.applyFrom(ctx, nil, o)
}

// applyFrom is apply for an observation that came from one host (nil:
// none).
func (d *daemon) applyFrom(ctx context.Context, from *hostWatch, o health.Observation) {
	if s, ok := o.(health.StdioSeen); ok {
		d.emit(d.stdio.Apply(s, d.now()))
		return
	}
	d.pings.noteLife(o, d.now())
	for _, r := range d.watched.route(o, from) {
		evs := r.h.model.Apply(r.o, d.now())
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
