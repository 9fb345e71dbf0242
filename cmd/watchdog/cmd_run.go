package main

import (
	"cmp"
	"context"
	"fmt"
	"sync"

	"github.com/mcpwatchdog/watchdog/internal/autostart"
	"github.com/mcpwatchdog/watchdog/internal/config"
	"github.com/mcpwatchdog/watchdog/internal/daemon"
	"github.com/mcpwatchdog/watchdog/internal/instance"
	"github.com/mcpwatchdog/watchdog/internal/memtrim"
	"github.com/mcpwatchdog/watchdog/internal/proxyproc"
	"github.com/mcpwatchdog/watchdog/internal/sockact"
	"github.com/mcpwatchdog/watchdog/tray"
)

// cmdRun is the daemon; cmdProxy (`watchdog proxy`) its proxies alone.
func cmdRun(ctx context.Context, c cli, args []string) int   { return serve(ctx, c, "run", args) }
func cmdProxy(ctx context.Context, c cli, args []string) int { return serve(ctx, c, "proxy", args) }

func serve(ctx context.Context, c cli, name string, args []string) int {
	var co common
	fs := newFlagSet(name, c, &co)
	asProxy, headless, proxies := name == "proxy", new(bool), new(string)
	if !asProxy {
		fs.BoolVar(headless, "headless", false, "no tray, no desktop dependency")
		fs.StringVar(proxies, "proxy-process", "", "who serves the proxies: \"\" this process, \"supervised\" a `watchdog proxy` a supervisor runs, \"spawn\" one this process starts")
	}
	if err := fs.Parse(args); err != nil || !proxyproc.ModeKnown(*proxies) {
		return usageErr(cmp.Or(err, fmt.Errorf("--proxy-process %q: want \"\", %q or %q", *proxies, proxyproc.Supervised, proxyproc.Spawn)))
	}
	cfg, stateDir, code := loadAsFound(ctx, c, co)
	if code != exitOK {
		return code
	}
	passed := takeSockets(c, cfg, stateDir)
	defer passed.Close() // those Serve did not get (it closes its own)
	useTray := !*headless && !asProxy && tray.SessionBusAvailable()
	fmt.Fprintln(c.stderr, "watchdog: "+daemon.RunMode(asProxy, *headless, useTray))
	acquire := instance.Acquire // it checks the state directory first: nothing is opened where others could plant links
	if asProxy {
		acquire = instance.AcquireProxy
	}
	lock, err := acquire(stateDir)
	if err != nil {
		fmt.Fprintf(c.stderr, "watchdog: %v\n", err)
		return exitFailed
	}
	defer lock.Release()
	opts := daemon.Options{Version: version, Logger: config.Logger(c.stderr, c.getenv), ConfigFile: cfg.Path, Sockets: passed, ProxyProcess: *proxies,
		StopSupervisor: autostart.Stop}
	if opts.ConfigFile == "" {
		// No file yet: the default one is followed, so that the one
		// `watchdog hosts adopt` writes is taken.
		if opts.ConfigFile, err = config.DefaultPath(); err != nil {
			opts.ConfigFile = ""
		}
	}
	if asProxy {
		err = proxyproc.Run(ctx, cfg, stateDir, proxyproc.Options{Logger: opts.Logger, ConfigFile: opts.ConfigFile, Sockets: passed,
			Load: daemon.ConfigLoader(stateDir, opts.ConfigFile, findOptions(c, nil))})
	} else {
		debugHooks(c, &opts, !useTray)
		oneProc(c.getenv)
		err = serveDaemon(ctx, useTray, cfg, stateDir, opts)
	}
	if err != nil {
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
	set, say := sockact.TakeFor(cfg.ProxyListens(), stateDir)
	for _, line := range say {
		fmt.Fprintf(c.stderr, "watchdog: %s\n", line)
	}
	return set
}
