package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"path/filepath"

	"github.com/mcpwatchdog/watchdog/internal/demo"
)

// cmdDemo plays the whole loop on an embedded server and client with the
// real daemon in-process; exit 0 only when every act did what it says.
func cmdDemo(ctx context.Context, c cli, args []string) int {
	// Its own flags only: the demo reads no config and makes its own
	// state directory, so --config and --state-dir would mean nothing.
	fs := flag.NewFlagSet("watchdog demo", flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	fast := fs.Bool("fast", false, "the short run (about 15 s instead of about 30 s)")
	keep := fs.Bool("keep", false, "keep the demo's temp directory (journal, server log, store)")
	if err := fs.Parse(args); err != nil {
		return usageErr(err)
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(c.stderr, "watchdog demo: takes no arguments, got %q\n", fs.Args())
		return exitUsage
	}
	// Only problems reach stderr: the narration is the demo's output.
	log := slog.New(slog.NewTextHandler(c.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	res, err := demo.Run(ctx, demo.Options{Out: c.stdout, Fast: *fast, Version: version, Logger: log, Keep: *keep})
	if err != nil {
		fmt.Fprintf(c.stderr, "watchdog demo: %v\n", err)
		return exitFailed
	}
	if !res.OK() {
		for _, a := range res.Acts {
			if !a.OK {
				fmt.Fprintf(c.stderr, "watchdog demo: act %d (%s) failed: %s\n", a.N, a.Title, a.Failure)
			}
		}
		return exitFailed
	}
	if *keep {
		fmt.Fprintf(c.stdout, "kept %s; its timeline: watchdog timeline --state-dir %s --open\n",
			res.Dir, filepath.Join(res.Dir, "state"))
	}
	return exitOK
}
