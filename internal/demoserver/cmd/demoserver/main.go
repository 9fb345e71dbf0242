// Command demoserver runs the demo MCP server (a Nowledge Mem look-alike on
// the official Go SDK) until SIGINT or SIGTERM. The first line of stdout is
// the MCP endpoint URL, so scripts can read it and connect.
//
//	demoserver -idle 30s -store /tmp/mcp-sessions.json -log /tmp/nmem.log
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/mcpwatchdog/watchdog/internal/demoserver"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run parses args, serves until ctx ends, and returns the exit code:
// 0 after a clean stop, 1 when the server fails, 2 for bad usage.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("demoserver", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", demoserver.DefaultAddr, "listen address")
	idle := fs.Duration("idle", 0, "idle session timeout (0: sessions never expire)")
	store := fs.String("store", "", "session store JSON file to mirror live sessions into")
	logPath := fs.String("log", "", "server log file to append to")
	stateless := fs.Bool("stateless", false, "serve without sessions")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "demoserver: unexpected arguments: %v\n", fs.Args())
		return 2
	}
	if *idle < 0 {
		fmt.Fprintf(stderr, "demoserver: -idle must not be negative, got %v\n", *idle)
		return 2
	}
	srv, err := demoserver.Start(ctx, demoserver.Options{
		Addr: *addr, IdleTimeout: *idle, Stateless: *stateless,
		StorePath: *store, LogPath: *logPath,
		Logger: slog.New(slog.NewTextHandler(stderr, nil)),
	})
	if err != nil {
		fmt.Fprintf(stderr, "demoserver: %v\n", err)
		return 1
	}
	fmt.Fprintln(stdout, srv.URL())
	<-ctx.Done()
	if err := srv.Close(); err != nil {
		fmt.Fprintf(stderr, "demoserver: %v\n", err)
		return 1
	}
	return 0
}
