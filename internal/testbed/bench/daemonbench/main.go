// Command daemonbench measures the watchdog binary from the outside, as a
// user's machine would run it: line written → journal event latency, store
// change → session_expired latency, and idle CPU and memory. `make bench`
// runs it; it prints markdown table rows.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx))
}

func run(ctx context.Context) int {
	bin := flag.String("watchdog", "bin/watchdog", "the watchdog binary")
	mode := flag.String("mode", "latency", "latency | store | idle | growth | keepwarm | flood")
	samples := flag.Int("samples", 1000, "samples for latency modes")
	files := flag.Int("files", 20, "followed log files (idle, latency)")
	servers := flag.Int("servers", 2, "servers (idle; latency: more than its own 25)")
	dur := flag.Duration("duration", 60*time.Second, "measurement window (idle)")
	lines := flag.Int("lines", 1000000, "log lines (flood)")
	settle := flag.Duration("settle", 3*time.Second, "wait after the start before an idle window (idle, growth)")
	flag.Parse()
	dir, err := os.MkdirTemp("", "daemonbench")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	b := &bench{bin: *bin, dir: dir, settle: *settle}
	switch *mode {
	case "latency":
		err = b.lineLatency(ctx, *samples, *files, *servers)
	case "store":
		err = b.storeLatency(ctx, *samples)
	case "idle":
		err = b.idle(ctx, *files, *servers, *dur)
	case "growth":
		err = b.growth(ctx, *dur)
	case "keepwarm":
		err = b.keepWarm(ctx, *samples, *servers)
	case "flood":
		err = b.flood(ctx, *lines)
	default:
		err = fmt.Errorf("unknown mode %q", *mode)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "daemonbench:", err)
		return 1
	}
	return 0
}
