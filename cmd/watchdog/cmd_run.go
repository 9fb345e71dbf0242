package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"time"

	"github.com/mcpwatchdog/watchdog/healer"
	"github.com/mcpwatchdog/watchdog/internal/config"
	"github.com/mcpwatchdog/watchdog/internal/control"
	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/instance"
	"github.com/mcpwatchdog/watchdog/internal/journal"
	"github.com/mcpwatchdog/watchdog/tray"
)

const socketName = "watchdog.sock"

// storesReadWait bounds how long the control socket waits for the stores'
// first read.
const storesReadWait = 5 * time.Second

func cmdRun(ctx context.Context, c cli, args []string) int {
	var co common
	fs := newFlagSet("run", c, &co)
	headless := fs.Bool("headless", false, "no tray, no desktop dependency")
	if len(args) > 0 && args[0] == "run" {
		args = args[1:]
	}
	if err := fs.Parse(args); err != nil {
		return usageErr(err)
	}
	cfg, stateDir, code := loadConfig(c, co)
	if code != exitOK {
		return code
	}
	useTray := !*headless && tray.SessionBusAvailable()
	switch {
	case *headless:
		fmt.Fprintln(c.stderr, "watchdog: running headless (--headless)")
	case useTray:
		fmt.Fprintln(c.stderr, "watchdog: running with a tray (desktop session bus found)")
	default:
		fmt.Fprintln(c.stderr, "watchdog: running headless (no desktop session bus)")
	}
	lock, err := instance.Acquire(stateDir)
	if err != nil {
		fmt.Fprintf(c.stderr, "watchdog: %v\n", err)
		return exitFailed
	}
	defer lock.Release()
	log := newLogger(c.stderr, c.getenv)
	if useTray {
		err = serveWithTray(ctx, cfg, stateDir, log)
	} else {
		err = serve(ctx, cfg, stateDir, log, serveOptions{clockSkewFile: c.getenv(clockSkewEnv)})
	}
	if err != nil {
		fmt.Fprintf(c.stderr, "watchdog: %v\n", err)
		return exitFailed
	}
	return exitOK
}

// serveWithTray runs the daemon beside the tray, whose event loop must own
// this goroutine (the main one: macOS needs it). Quit in the tray, or the
// end of ctx, stops both.
func serveWithTray(ctx context.Context, cfg config.Config, stateDir string, log *slog.Logger) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	t := tray.New(tray.Options{Name: "MCP Session Watchdog", Logger: log})
	done := make(chan error, 1)
	go func() {
		done <- serve(ctx, cfg, stateDir, log, serveOptions{tray: t, quit: cancel})
		cancel()
	}()
	if err := t.Run(ctx); err != nil {
		// The desktop went away, not the user: keep watching without a face.
		log.Warn("tray failed; running on headless", "err", err)
		return <-done
	}
	cancel()
	return <-done
}

// serveOptions is what an embedding (`watchdog demo`) changes about the
// daemon; the zero value is the real daemon.
type serveOptions struct {
	// patch, when set, is the client's patch state, used instead of
	// inspecting host.client_module (the demo's client is Go, not JS).
	patch *healer.PatchState
	// home, when set, is where recovery triggers go instead of the user's
	// home, so a demo never touches the real client's trigger folder.
	home string
	// send, when set, shows notifications instead of the desktop's
	// notification service (the demo prints them).
	send func(title, body string) error
	// tray, when set, is the menu-bar face: it gets views, gives clicks.
	tray *tray.Tray
	// quit stops the daemon from inside (the tray's Quit).
	quit func()
	// clockSkewFile: see clockSkewEnv.
	clockSkewFile string
}

// serve runs the daemon until ctx ends.
func serve(ctx context.Context, cfg config.Config, stateDir string, log *slog.Logger, opts serveOptions) error {
	j, err := journal.Open(stateDir, journal.Options{})
	if err != nil {
		return err
	}
	defer j.Close()
	recs, err := journal.ReadTail(stateDir, restoreWindow)
	if err != nil {
		log.Warn("cannot read the journal back; open incidents are forgotten", "err", err)
	}
	back := restore(recs)
	d := newDaemon(cfg, stateDir, log, j)
	d.opts = opts
	d.clock.skewFile = opts.clockSkewFile
	d.clock.refresh()
	d.autostartOn = opts.tray != nil && autostartEnabled()
	d.reopen(back)
	d.restoreTracked(recs)

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	d.startNotifier(ctx, &wg, recs)
	d.emit([]health.Event{d.startedEvent()})
	pinger, warnings := d.newPinger(ctx)
	d.pinger = pinger
	d.emit(warnings)
	defer pinger.Wait()
	loopDone := make(chan struct{})
	go func() { defer close(loopDone); d.loop(ctx) }()
	if err := d.startSources(ctx, &wg, back.resume); err != nil {
		cancel()
		<-loopDone
		wg.Wait()
		return err
	}
	d.serveMetrics(ctx, &wg)
	// The control socket opens once the logs are positioned and the stores
	// read: a client that can reach the daemon knows every line it writes
	// from then on is live, and every store change is compared with what
	// was there (a store that cannot be read in time does not hold it up).
	select {
	case <-d.follower.Ready():
	case <-ctx.Done():
	}
	select {
	case <-d.storesRead:
	case <-time.After(storesReadWait):
	case <-ctx.Done():
	}
	serveErr := make(chan error, 1)
	goRun(&wg, func() {
		serveErr <- control.Serve(ctx, filepath.Join(stateDir, socketName), controlHandler{d}, log)
	})
	var failure error
	select {
	case <-ctx.Done():
	case err := <-serveErr:
		if err != nil && !errors.Is(err, context.Canceled) {
			failure = fmt.Errorf("control socket: %w", err)
		}
	}
	cancel()
	<-loopDone
	d.drain(ctx)
	d.saveTracked(true)
	d.heal.close()
	wg.Wait()
	if err := d.follower.Flush(); err != nil {
		log.Warn("cannot save the log checkpoint; the journal still records every position", "err", err)
	}
	d.emit([]health.Event{{Time: d.now(), Kind: health.EvStopped, Detail: "watchdog stopped"}})
	return failure
}

func (d *daemon) startedEvent() health.Event {
	names := make([]string, 0, len(d.cfg.Servers))
	for _, s := range d.cfg.Servers {
		names = append(names, s.Name)
	}
	return health.Event{Time: d.now(), Kind: health.EvStarted,
		Fields: map[string]any{"version": version, "config": d.cfg.Path, "servers": names},
		Detail: fmt.Sprintf("watchdog %s started, watching %s and %d server(s)", version, d.cfg.Host.Name, len(names))}
}

// drain handles what the sources sent before they saw the cancellation, so
// that nothing acknowledged is dropped, while they wind down.
func (d *daemon) drain(ctx context.Context) {
	for {
		select {
		case it := <-d.items:
			d.handle(ctx, it)
		default:
			return
		}
	}
}
