// Command demoserver runs the demo MCP server (a Nowledge Mem look-alike on
// the official Go SDK) until SIGINT or SIGTERM. The first line of stdout is
// the MCP endpoint URL, so scripts can read it and connect.
//
//	demoserver -idle 30s -store /tmp/mcp-sessions.json -log /tmp/nmem.log -events
//
// With -events, every session the server starts and ends follows on stdout,
// one line each, written whole as it happens:
//
//	SESSION_START <id> <client>   client: the rest of the line; "-" when empty,
//	                              CR and LF become spaces
//	SESSION_END <id> <reason>     reason: idle_timeout, deleted, shutdown or closed
//	TOOL_CALL <id> <text>         the echo tool ran; text: its argument, the
//	                              rest of the line, CR and LF as spaces
//
// A SIGKILLed server leaves its store and log as they were; started again
// with the same -store it first rewrites the store empty, as a fresh server.
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
	"strings"
	"sync"
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
	events := fs.Bool("events", false, "print SESSION_START, SESSION_END and TOOL_CALL lines on stdout after the URL")
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
	out := &lineWriter{w: stdout}
	opts := demoserver.Options{
		Addr: *addr, IdleTimeout: *idle, Stateless: *stateless,
		StorePath: *store, LogPath: *logPath,
		Logger: slog.New(slog.NewTextHandler(stderr, nil)),
	}
	if *events {
		opts.OnEvent = func(e demoserver.Event) { out.line(eventLine(e)) }
	}
	// Held until the URL is out: a client that knew the port (a restart on
	// the same -addr) may open a session before Start has even returned, and
	// its SESSION_START must not come first.
	out.mu.Lock()
	srv, err := demoserver.Start(ctx, opts)
	if err != nil {
		out.mu.Unlock()
		fmt.Fprintf(stderr, "demoserver: %v\n", err)
		return 1
	}
	fmt.Fprintln(stdout, srv.URL())
	out.mu.Unlock()
	<-ctx.Done()
	if err := srv.Close(); err != nil {
		fmt.Fprintf(stderr, "demoserver: %v\n", err)
		return 1
	}
	return 0
}

// lineWriter writes whole lines to w one at a time: OnEvent runs on request
// and session goroutines. Each line is one Write, so an unbuffered w (stdout)
// passes it on at once.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lineWriter) line(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	_, _ = io.WriteString(l.w, s+"\n")
}

// eventLine renders e as a SESSION_START, SESSION_END or TOOL_CALL line.
func eventLine(e demoserver.Event) string {
	switch e.Kind {
	case demoserver.EventEnd:
		return "SESSION_END " + e.ID + " " + string(e.Reason)
	case demoserver.EventCall:
		return "TOOL_CALL " + e.ID + " " + oneLine(e.Text)
	}
	client := oneLine(e.Client)
	if client == "" {
		client = "-"
	}
	return "SESSION_START " + e.ID + " " + client
}

// oneLine keeps a free-text field on its line.
func oneLine(s string) string { return strings.NewReplacer("\r", " ", "\n", " ").Replace(s) }
