package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/mcpwatchdog/watchdog/healer/stdio"
	"github.com/mcpwatchdog/watchdog/internal/config"
)

// cmdStdio is what an adopted host runs in place of a stdio server. It
// reads no config (a broken one must not break the server); what it needs
// rides in its arguments (some hosts pass a server few variables).
func cmdStdio(ctx context.Context, c cli, args []string) int {
	fs := flag.NewFlagSet("watchdog stdio", flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	server := fs.String("server", "", "the server's name in the host's file (for what is said)")
	hostName := fs.String("host", "", "the host that runs it (for what is said)")
	stateDir := fs.String("state-dir", "", "the daemon's state directory, to report to it (env WATCHDOG_STATE_DIR)")
	hung := fs.Bool("restart-hung", false, "kill and start again a server that answers neither a request nor a ping")
	if err := fs.Parse(args); err != nil {
		return usageErr(err)
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(c.stderr, "usage: watchdog stdio [--server NAME] [--host HOST] [--state-dir DIR] [--restart-hung] -- CMD ARGS...")
		return exitUsage
	}
	dir, err := config.ResolveStateDir(*stateDir, c.getenv("WATCHDOG_STATE_DIR"), "")
	if err != nil {
		fmt.Fprintf(c.stderr, "watchdog stdio: not reporting to the daemon: %v\n", err)
	}
	oneProc(c.getenv) // a second P woke a second thread at each handoff (bench-stdio)
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGUSR1, syscall.SIGUSR2)
	defer signal.Stop(sigs)
	// The host's signals end the server through Signals, not ctx.
	code, err := stdio.Run(context.WithoutCancel(ctx), stdio.Options{Command: fs.Args(), Server: *server, Host: *hostName,
		RestartHung: *hung, StateDir: dir, Trim: true, Signals: sigs, Stdin: os.Stdin, Stdout: c.stdout, Stderr: c.stderr})
	if err != nil {
		fmt.Fprintf(c.stderr, "watchdog stdio: %v\n", err)
	}
	return code
}
