// Package daemon is the watchdog's run loop: it wires the monitors'
// observations into the health model, journals what the model says, heals
// through the healer and shows it all on the tray, the notifier, the
// metrics and the control socket. cmd/watchdog only parses flags and
// calls Serve or ServeWithTray.
package daemon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/mcpwatchdog/watchdog/healer"
	"github.com/mcpwatchdog/watchdog/internal/autostart"
	"github.com/mcpwatchdog/watchdog/internal/config"
	"github.com/mcpwatchdog/watchdog/internal/control"
	"github.com/mcpwatchdog/watchdog/internal/fsutil"
	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/journal"
	"github.com/mcpwatchdog/watchdog/internal/notify"
	"github.com/mcpwatchdog/watchdog/internal/proxyproc"
	"github.com/mcpwatchdog/watchdog/internal/sockact"
	"github.com/mcpwatchdog/watchdog/internal/stream"
	"github.com/mcpwatchdog/watchdog/monitor/follow"
	"github.com/mcpwatchdog/watchdog/tray"
)

// storesReadWait bounds how long the control socket waits for the stores'
// first read.
const storesReadWait = 5 * time.Second

// Options is what a caller changes about the daemon. The zero value is the
// real headless daemon; each field documents its zero value.
type Options struct {
	// Version is journaled in `started` and sent as the pings' client
	// version. Zero: "dev".
	Version string
	// Logger is the daemon's own log. Zero: discarded.
	Logger *slog.Logger
	// Patch is the host client's patch state when the caller knows it
	// better than an inspection of host.client_module can (a client that
	// is not a JS module, such as the demo's). Zero: inspect every minute.
	Patch *healer.PatchState
	// Home is where the client's beacons are read and its recovery
	// triggers written. Zero: the user's home directory.
	Home string
	// Send shows one notification. Zero: the desktop's notification service.
	Send func(title, body string) error
	// Tray is the menu-bar face: it gets views and gives clicks. Zero:
	// headless. ServeWithTray sets it.
	Tray *tray.Tray
	// Quit stops the daemon from inside (the tray's Quit). Zero: no quit.
	Quit func()
	// StopSupervisor asks the supervisor that runs a supervised daemon
	// (ProxyProcess proxyproc.Supervised) to stop it and its proxy process
	// now, leaving them started at the next login (autostart.Stop): Quit
	// calls it first, since an exit alone is restarted a second later.
	// Zero: Quit only exits.
	StopSupervisor func(context.Context, autostart.Options) (autostart.Result, error)
	// drills is empty in a release build; a build with the watchdogdebug
	// tag gives it the chaos soak's drills (drills_debug.go).
	//lint:ignore U1000 empty in a release build, the drills in a debug one
	drills
	// ConfigFile is the config file to follow: when its bytes change to a
	// config that loads, the daemon takes it without the process
	// restarting (tracked sessions, open incidents and log positions are
	// kept as across a restart); one that does not load is journaled and
	// the running config stays. Zero: not followed.
	ConfigFile string
	// Sockets are the listening sockets a supervisor passed the process
	// (systemd, launchd: sockact.Take). Each proxy, and the control
	// socket, is served on the one of its address, which the supervisor
	// keeps open while the daemon restarts; the daemon opens only the
	// rest. Serve closes them when it returns. Zero: none were passed.
	Sockets sockact.Set
	// ProxyProcess says who serves the proxies. Zero: the daemon itself.
	// proxyproc.Supervised: a proxy process (proxyproc.Run) that a
	// supervisor runs; the daemon follows it over proxyproc.SocketPath, and
	// a host's call in flight when the daemon dies goes on.
	// proxyproc.Spawn: the same, and the daemon starts one itself
	// (StartProxy), detached, whenever none answers.
	ProxyProcess string
	// StartProxy makes the command that runs a proxy process for this
	// daemon's config and state directory (proxyproc.Spawn). Zero: this
	// binary's `watchdog proxy --state-dir DIR [--config FILE]`.
	StartProxy func() *exec.Cmd

	// sources are run beside the daemon's own (sourcesOf): a test's
	// producer, registered as a new source would be.
	sources []source
	// faces follow the stream beside the daemon's own (facesOf): a
	// test's face, registered as a new face would be.
	faces []stream.Face
}

func (o *Options) fill() {
	if o.Version == "" {
		o.Version = "dev"
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
}

// ServeWithTray runs the daemon beside the tray, whose event loop must own
// this goroutine (the main one: macOS needs it). Quit in the tray, or the
// end of ctx, stops both.
func ServeWithTray(ctx context.Context, cfg config.Config, stateDir string, opts Options) error {
	opts.fill()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	opts.Tray = tray.New(tray.Options{Name: "MCP Session Watchdog", Logger: opts.Logger})
	opts.Quit = cancel
	done := make(chan error, 1)
	go func() {
		done <- Serve(ctx, cfg, stateDir, opts)
		cancel()
	}()
	if err := opts.Tray.Run(ctx); err != nil {
		// The desktop went away, not the user: keep watching without a face.
		opts.Logger.Warn("tray failed; running on headless", "err", err)
		return <-done
	}
	cancel()
	return <-done
}

// Serve runs the daemon until ctx ends or its control socket fails. The
// state directory is checked first (fsutil.PrivateDir): nothing is opened
// in a directory where others could have planted links. A changed config
// file (Options.ConfigFile) ends a run, and the next starts with it.
func Serve(ctx context.Context, cfg config.Config, stateDir string, opts Options) error {
	opts.fill()
	socks := proxyproc.NewSockets(opts.Sockets)
	defer socks.Close()
	for {
		next, err := serveRun(ctx, cfg, stateDir, opts, socks)
		if ctx.Err() != nil && opts.ProxyProcess == proxyproc.Spawn {
			// Stopped on purpose: the proxy process it started goes too
			// (one that crashes leaves it serving, as it should).
			if serr := proxyproc.Stop(context.WithoutCancel(ctx), stateDir, "the daemon that started it was stopped"); serr != nil {
				opts.Logger.Warn("the proxy process may still run", "err", serr)
			}
		}
		if err != nil || next == nil || ctx.Err() != nil {
			return err
		}
		opts.Logger.Info("taking the changed config", "path", opts.ConfigFile)
		cfg = *next
	}
}

// serveRun is one run of the daemon with one config, serving on socks.
// It returns the config to run next when a changed config file ended it.
func serveRun(ctx context.Context, cfg config.Config, stateDir string, opts Options, socks *proxyproc.Sockets) (*config.Config, error) {
	if err := fsutil.PrivateDir(stateDir); err != nil {
		return nil, err
	}
	secret, err := proxyproc.LoadSecret(cfg, stateDir)
	if err != nil {
		return nil, err
	}
	j, err := journal.Open(stateDir, opts.journalOptions())
	if err != nil {
		return nil, err
	}
	defer j.Close()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	d := newDaemon(cfg, stateDir, secret, opts, j)
	d.listen.socks = socks
	d.run.cancel = cancel
	// The proxies first: a host's call waiting in a held socket's queue is
	// answered before the start reads the journal back and pings what it
	// held. What they see waits in the loop's queue until it runs.
	var wg sync.WaitGroup
	d.startProxies(ctx, &wg)
	pinger, warnings := d.newPinger(ctx)
	d.pings.pinger = pinger
	d.pings.live = healer.NewLiveness(pinger.Servers(), d.now())
	d.pings.asked = map[string]bool{}
	defer pinger.Wait()
	handover := d.warmThroughStart(ctx)
	recs, err := journal.ReadTail(stateDir, restoreWindow)
	if err != nil {
		opts.Logger.Warn("cannot read the journal back; open incidents are forgotten", "err", err)
	}
	back := restore(recs, d.proxied, d.recordKey)
	saved := d.restoreTracked(recs)
	d.reopen(back, saved)
	d.restoreStdio(recs)
	warnings = append(warnings, unreportedOutage(saved, recs, d.now())...)
	for _, h := range d.watched {
		warnings = append(warnings, h.heal.warnings...)
	}
	handover()
	err = d.serve(ctx, cancel, &wg, back.forNotifier(recs), back.resume, warnings)
	return d.run.next, err
}

// serve starts the loop and the sources, serves the control socket once
// they are ready, and winds everything down in order when ctx ends (or
// serve cancels it, its socket having failed).
func (d *daemon) serve(ctx context.Context, cancel context.CancelFunc, wg *sync.WaitGroup, recs []journal.Record, resume []follow.Position, warnings []health.Event) error {
	d.startFaces(ctx, wg, recs)
	defer d.events.Close() // after stop: the faces take the last events
	d.emit([]health.Event{d.startedEvent()})
	d.emit(warnings)
	d.firstBeacons(ctx)
	loopDone := make(chan struct{})
	go func() { defer close(loopDone); d.loop(ctx) }()
	if err := d.startSources(ctx, wg, resume); err != nil {
		cancel()
		<-loopDone
		wg.Wait()
		d.closeDirWatch()
		return err
	}
	d.serveMetrics(ctx, wg)
	d.waitReady(ctx)
	failure := d.serveControl(ctx, wg)
	cancel()
	<-loopDone
	d.stop(ctx, wg)
	return failure
}

// waitReady holds the control socket until the logs are positioned and the
// stores read: a client that can reach the daemon knows every line it
// writes from then on is live, and every store change is compared with
// what was there (a store that cannot be read in time does not hold it up).
func (d *daemon) waitReady(ctx context.Context) {
	select {
	case <-d.src.follower.Ready():
	case <-ctx.Done():
	}
	select {
	case <-d.src.storesRead:
	case <-time.After(storesReadWait):
	case <-ctx.Done():
	}
}

// serveControl answers the control socket until ctx ends, on the one a
// supervisor passed when there is one; a socket that fails is the
// daemon's failure.
func (d *daemon) serveControl(ctx context.Context, wg *sync.WaitGroup) error {
	serveErr := make(chan error, 1)
	ln, from, err := d.listen.socks.Control(control.SocketPath(d.stateDir))
	if err != nil {
		return fmt.Errorf("control socket: %w", err)
	}
	goRun(wg, func() {
		if ln != nil {
			d.log.Info("control socket passed by the supervisor", "from", from, "path", control.SocketPath(d.stateDir))
			serveErr <- control.ServeListener(ctx, ln, controlHandler{d}, d.log)
			return
		}
		serveErr <- control.Serve(ctx, control.SocketPath(d.stateDir), controlHandler{d}, d.log)
	})
	select {
	case <-ctx.Done():
		return nil
	case err := <-serveErr:
		if err != nil && !errors.Is(err, context.Canceled) {
			return fmt.Errorf("control socket: %w", err)
		}
		return nil
	}
}

// stop handles what the sources sent before they stopped, saves what a
// restart needs and journals the stop. Events the journal still cannot
// take are not acknowledged: the next start replays them.
func (d *daemon) stop(ctx context.Context, wg *sync.WaitGroup) {
	d.drain(ctx)
	for _, h := range d.watched {
		d.emitFrom(h, h.model.Settle(d.now())) // ends still waiting on a server's word
	}
	d.retryJournal(true)
	d.saveTracked(true)
	d.face.work.Wait()
	for _, h := range d.watched {
		h.heal.close()
	}
	wg.Wait()
	d.closeDirWatch()
	if err := d.src.follower.Flush(); err != nil {
		d.log.Warn("cannot save the log checkpoint; the journal still records every position", "err", err)
	}
	detail := "watchdog stopped"
	if d.run.next != nil {
		detail = "watchdog stopped to take the changed config " + d.opts.ConfigFile + "; it starts again with it at once"
	}
	d.emit([]health.Event{{Time: d.now(), Kind: health.EvStopped, Detail: detail}})
	d.reportUnwritten()
}

func (d *daemon) startedEvent() health.Event {
	names := make([]string, 0, len(d.cfg.Servers))
	for _, s := range d.cfg.Servers {
		names = append(names, s.Name)
	}
	return health.Event{Time: d.now(), Kind: health.EvStarted,
		Extra: map[string]any{"version": d.opts.Version, "config": d.cfg.Path, "servers": names,
			notify.StartedNotifyKey: d.face.notifier != nil},
		Detail: fmt.Sprintf("watchdog %s started, watching %s and %d server(s)", d.opts.Version, joinAnd(d.watched.names()), len(names))}
}

// drainFor bounds the drain: a stop is done within two seconds whatever
// a flood left queued.
const drainFor = time.Second

// drain handles what the sources sent before they saw the cancellation,
// while they wind down, for at most drainFor: log lines left are not
// acknowledged, so the next start reads them again, and stores and
// processes are looked at afresh then.
func (d *daemon) drain(ctx context.Context) {
	deadline := time.Now().Add(drainFor)
	for time.Now().Before(deadline) {
		select {
		case it := <-d.in.items:
			d.handle(ctx, it)
		case it := <-d.in.lines:
			d.handle(ctx, it)
		case it := <-d.reports.queue:
			d.handle(ctx, it)
		default:
			return
		}
	}
}

// joinAnd lists names as a sentence does: "A", "A and B", "A, B and C".
func joinAnd(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// RunMode says what a `watchdog run` process runs as: the proxy process
// alone, or the daemon headless or with a tray, and why.
func RunMode(asProxy, headless, useTray bool) string {
	switch {
	case asProxy:
		return "serving the proxies alone (watchdog proxy)"
	case headless:
		return "running headless (--headless)"
	case useTray:
		return "running with a tray (desktop session bus found)"
	}
	return "running headless (no desktop session bus)"
}
