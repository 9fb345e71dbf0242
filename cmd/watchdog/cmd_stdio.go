package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/mcpwatchdog/watchdog/healer/stdio"
	"github.com/mcpwatchdog/watchdog/internal/config"
)

// cmdStdio is what an adopted host runs in place of a stdio server: the
// server as a child, started again after it dies. It reads no config
// file (a broken one must not break the host's server); what it needs
// rides in its arguments, since some hosts pass a server only a fixed
// set of environment variables.
func cmdStdio(ctx context.Context, c cli, args []string) int {
	fs := flag.NewFlagSet("watchdog stdio", flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	server := fs.String("server", "", "the server's name in the host's file (for what is said)")
	hostName := fs.String("host", "", "the host that runs it (for what is said)")
	stateDir := fs.String("state-dir", "", "the running daemon's state directory, to report to it (env WATCHDOG_STATE_DIR)")
	hung := fs.Bool("restart-hung", false, "kill and start again a server that answers neither a request nor a ping")
	fs.Usage = func() {
		fmt.Fprintln(c.stderr, "usage: watchdog stdio [--server NAME] [--host HOST] [--state-dir DIR] [--restart-hung] -- CMD ARGS...")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return usageErr(err)
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(c.stderr, "watchdog stdio: name the server's command after --, e.g. watchdog stdio --server mem -- npx -y @modelcontextprotocol/server-memory")
		return exitUsage
	}
	opt := stdio.Options{Command: fs.Args(), Server: *server, Host: *hostName, RestartHung: *hung,
		Stdin: os.Stdin, Stdout: c.stdout, Stderr: c.stderr}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGUSR1, syscall.SIGUSR2)
	defer signal.Stop(sigs)
	opt.Signals = sigs
	if link := stdioLink(c, *stateDir); link != nil {
		lctx, stop := context.WithCancel(context.WithoutCancel(ctx))
		done := make(chan struct{})
		go func() { defer close(done); link.Serve(lctx) }()
		defer func() { stop(); <-done }()
		opt.Report = link.Send
	}
	code, err := stdio.Run(context.WithoutCancel(ctx), opt)
	if err != nil && !errors.Is(err, stdio.ErrNoCommand) {
		fmt.Fprintf(c.stderr, "watchdog stdio: %v\n", err)
	}
	return code
}

// stdioLink is the supervisor's socket for the daemon, or nil (said on
// stderr) where it cannot listen: the server runs all the same.
func stdioLink(c cli, flagDir string) *stdio.Link {
	dir, err := config.ResolveStateDir(flagDir, c.getenv("WATCHDOG_STATE_DIR"), "")
	if err == nil {
		var link *stdio.Link
		if link, err = stdio.Listen(dir); err == nil {
			return link
		}
	}
	fmt.Fprintf(c.stderr, "watchdog stdio: not reporting to the daemon: %v\n", err)
	return nil
}
