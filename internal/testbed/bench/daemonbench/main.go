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
	"strconv"
	"strings"
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
	mode := flag.String("mode", "latency", "latency | store | idle | firstminute | growth | keepwarm | flood | proxycompare | proxyprofile | proxysyscalls | proxyab | proxyheld | stdio")
	samples := flag.Int("samples", 1000, "samples for latency modes; firstminute: runs, each a new daemon")
	files := flag.Int("files", 20, "followed log files (idle, latency)")
	servers := flag.Int("servers", 2, "servers (idle; latency: more than its own 25)")
	dur := flag.Duration("duration", 60*time.Second, "measurement window (idle)")
	lines := flag.Int("lines", 1000000, "log lines (flood)")
	settle := flag.Duration("settle", 3*time.Second, "wait after the start before an idle window (idle, growth)")
	upstreams := flag.String("upstreams", "go-sdk,mcp-go", "servers behind the proxies (proxycompare, proxyprofile)")
	concs := flag.String("conc", "1,8,64", "concurrent sessions (proxycompare; proxyprofile takes the first)")
	window := flag.Duration("window", 2*time.Second, "one straight or proxied window (proxycompare, proxyprofile)")
	rounds := flag.Int("rounds", 2, "rounds of windows (proxycompare)")
	held := flag.String("held", "1000,10000", "idle sessions held (proxyheld)")
	heldSettle := flag.Duration("held-settle", 10*time.Second, "proxyheld: wait before each RSS reading")
	perf := flag.String("perf", "", "proxyprofile: record the watchdog with perf and write its report here")
	variants := flag.String("variants", "", "proxyab: name=binary[,ENV=value...] separated by ;")
	env := flag.String("env", "", "more of every daemon's environment: ENV=value,... (GOGC, GODEBUG experiments)")
	flag.Parse()
	dir, err := os.MkdirTemp("", "daemonbench")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	b := &bench{bin: *bin, dir: dir, settle: *settle, heldSettle: *heldSettle}
	if *env != "" {
		b.env = strings.Split(*env, ",")
	}
	switch *mode {
	case "latency":
		err = b.lineLatency(ctx, *samples, *files, *servers)
	case "store":
		err = b.storeLatency(ctx, *samples)
	case "idle", "firstminute":
		err = b.idleRow(ctx, *mode, *files, *servers, *samples, *dur)
	case "growth":
		err = b.growth(ctx, *dur)
	case "keepwarm":
		err = b.keepWarm(ctx, *samples, *servers)
	case "flood":
		err = b.flood(ctx, *lines)
	case "serve":
		err = serve(ctx, *upstreams)
	case "stdio":
		err = b.stdioBench(ctx, *samples, *dur)
	case "stdioresponder":
		err = stdioResponder()
	case "stdiorelay":
		err = stdioRelay(flag.Args())
	default:
		err = b.proxyMode(ctx, *mode, proxyFlags{upstreams: *upstreams, concs: *concs, window: *window, rounds: *rounds,
			perf: *perf, variants: *variants, held: *held})
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "daemonbench:", err)
		return 1
	}
	return 0
}

// proxyFlags are the flags of the proxy's modes.
type proxyFlags struct {
	upstreams, concs, perf, variants, held string
	window                                 time.Duration
	rounds                                 int
}

// proxyMode runs one of the proxy's modes.
func (b *bench) proxyMode(ctx context.Context, mode string, f proxyFlags) error {
	switch mode {
	case "proxycompare":
		return b.proxyCompare(ctx, strings.Split(f.upstreams, ","), ints(f.concs), f.window, f.rounds)
	case "proxyprofile":
		return b.proxyProfile(ctx, f.upstreams, ints(f.concs)[0], f.window, f.perf)
	case "proxysyscalls":
		return b.proxySyscalls(ctx, f.upstreams, ints(f.concs)[0], f.window)
	case "proxyab":
		return b.proxyAB(ctx, f.upstreams, strings.Split(f.variants, ";"), ints(f.concs), f.window, f.rounds)
	case "proxyheld":
		return b.proxyHeld(ctx, ints(f.held))
	}
	return fmt.Errorf("unknown mode %q", mode)
}

// ints reads a comma-separated list of numbers; a bad one is fatal.
func ints(s string) []int {
	var out []int
	for f := range strings.SplitSeq(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			fmt.Fprintf(os.Stderr, "daemonbench: %q is not a list of numbers: %v\n", s, err)
			os.Exit(2)
		}
		out = append(out, n)
	}
	return out
}
