package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"

	"github.com/mcpwatchdog/watchdog/internal/config"
	"github.com/mcpwatchdog/watchdog/internal/control"
	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/instance"
	"github.com/mcpwatchdog/watchdog/internal/journal"
)

const socketName = "watchdog.sock"

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
	if *headless {
		fmt.Fprintln(c.stderr, "watchdog: running headless (--headless)")
	} else {
		fmt.Fprintln(c.stderr, "watchdog: running headless (this build has no tray yet)")
	}
	lock, err := instance.Acquire(stateDir)
	if err != nil {
		fmt.Fprintf(c.stderr, "watchdog: %v\n", err)
		return exitFailed
	}
	defer lock.Release()
	if err := serve(ctx, cfg, stateDir, newLogger(c.stderr, c.getenv)); err != nil {
		fmt.Fprintf(c.stderr, "watchdog: %v\n", err)
		return exitFailed
	}
	return exitOK
}

// serve runs the daemon until ctx ends.
func serve(ctx context.Context, cfg config.Config, stateDir string, log *slog.Logger) error {
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
	d.reopen(back)

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	d.emit([]health.Event{d.startedEvent()})
	pinger, warnings := d.newPinger(ctx)
	d.pinger = pinger
	d.emit(warnings)
	defer pinger.Wait()
	loopDone := make(chan struct{})
	go func() { defer close(loopDone); d.loop(ctx) }()
	var wg sync.WaitGroup
	if err := d.startSources(ctx, &wg, back.resume); err != nil {
		cancel()
		<-loopDone
		return err
	}
	d.serveMetrics(ctx, &wg)
	// The control socket opens once the logs are positioned: a client that
	// can reach the daemon knows every line it writes from then on is live.
	select {
	case <-d.follower.Ready():
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
