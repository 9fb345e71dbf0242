package main

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/mcpwatchdog/watchdog/internal/config"
	"github.com/mcpwatchdog/watchdog/internal/daemon"
	"github.com/mcpwatchdog/watchdog/internal/fsutil"
	"github.com/mcpwatchdog/watchdog/internal/instance"
	"github.com/mcpwatchdog/watchdog/internal/memtrim"
	"github.com/mcpwatchdog/watchdog/internal/sockact"
	"github.com/mcpwatchdog/watchdog/tray"
)

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
	cfg, stateDir, code := loadAsFound(ctx, c, co)
	if code != exitOK {
		return code
	}
	passed := takeSockets(c, cfg, stateDir)
	defer passed.Close() // those Serve did not get (it closes its own)
	useTray := !*headless && tray.SessionBusAvailable()
	switch {
	case *headless:
		fmt.Fprintln(c.stderr, "watchdog: running headless (--headless)")
	case useTray:
		fmt.Fprintln(c.stderr, "watchdog: running with a tray (desktop session bus found)")
	default:
		fmt.Fprintln(c.stderr, "watchdog: running headless (no desktop session bus)")
	}
	// Before the lock: nothing is opened in a directory where others
	// could have planted links.
	if err := fsutil.PrivateDir(stateDir); err != nil {
		fmt.Fprintf(c.stderr, "watchdog: %v\n", err)
		return exitFailed
	}
	lock, err := instance.Acquire(stateDir)
	if err != nil {
		fmt.Fprintf(c.stderr, "watchdog: %v\n", err)
		return exitFailed
	}
	defer lock.Release()
	opts := daemon.Options{Version: version, Logger: newLogger(c.stderr, c.getenv), ConfigFile: cfg.Path, Sockets: passed}
	if opts.ConfigFile == "" {
		// No file yet: the default one is followed, so that the one
		// `watchdog hosts adopt` writes is taken.
		if opts.ConfigFile, err = config.DefaultPath(); err != nil {
			opts.ConfigFile = ""
		}
	}
	debugHooks(c, &opts, !useTray)
	oneProc(c.getenv)
	if err := serveDaemon(ctx, useTray, cfg, stateDir, opts); err != nil {
		fmt.Fprintf(c.stderr, "watchdog: %v\n", err)
		return exitFailed
	}
	return exitOK
}

// serveDaemon runs the daemon, with a tray or without, and lets go of the
// binary's unused pages meanwhile (memtrim.Loop), and of the heap a burst
// of work leaves behind (memtrim.HeapLoop).
func serveDaemon(ctx context.Context, useTray bool, cfg config.Config, stateDir string, opts daemon.Options) error {
	var wg sync.WaitGroup
	defer wg.Wait()
	tctx, stopTrim := context.WithCancel(ctx)
	defer stopTrim()
	wg.Go(func() { memtrim.Loop(tctx, opts.Logger) })
	wg.Go(func() { memtrim.HeapLoop(tctx) })
	if useTray {
		return daemon.ServeWithTray(ctx, cfg, stateDir, opts)
	}
	return daemon.Serve(ctx, cfg, stateDir, opts)
}

// takeSockets takes the listening sockets a supervisor passed (systemd's
// LISTEN_FDS, launchd's Sockets of the config's addresses) and says on
// stderr where they came from, or why launchd's could not be taken.
func takeSockets(c cli, cfg config.Config, stateDir string) sockact.Set {
	names := []string{sockact.ControlName}
	for _, s := range cfg.Servers {
		if s.ProxyListen != "" {
			names = append(names, sockact.ProxyName(s.ProxyListen))
		}
	}
	set, err := sockact.Take(names)
	if err != nil {
		fmt.Fprintf(c.stderr, "watchdog: %v\n", err)
	}
	for _, sk := range set.Skipped {
		fmt.Fprintf(c.stderr, "watchdog: a passed descriptor is not a listening socket, closed: %s\n", sk)
	}
	if !set.Empty() {
		addrs := make([]string, 0, len(set.Sockets))
		for _, so := range set.Sockets {
			addrs = append(addrs, so.Addr())
		}
		fmt.Fprintf(c.stderr, "watchdog: serving on the sockets %s holds: %s (state dir %s)\n", set.Sockets[0].From, strings.Join(addrs, ", "), stateDir)
	}
	return set
}
