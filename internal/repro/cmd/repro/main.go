// Command repro reproduces dsh-mcp-client's session-loss bug and shows the
// client patch fixing it (`make repro`), or measures the fix (`-runs N`,
// `make bench`). See package internal/repro.
//
// Without -runs it prints one line per server, client and patch state and
// exits 0 only when every unpatched client is STUCK and every patched one
// RECOVERED. With -runs N it runs the patched client N times per server,
// without and with the recovery trigger, and prints the median time from
// loss to recovered and the failed first calls.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/repro"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

type config struct {
	servers  []repro.ServerKind
	clients  []repro.ClientKind
	base     repro.Options
	runs     int
	markdown bool
}

func parse(args []string, stderr io.Writer) (config, error) {
	fs := flag.NewFlagSet("repro", flag.ContinueOnError)
	fs.SetOutput(stderr)
	servers := fs.String("servers", "go-sdk,ts-sdk", "servers that lose the session: go-sdk, ts-sdk")
	clients := fs.String("clients", "stand-in,real", "client modules: stand-in, real (npm dsh-mcp-client 0.1.0-rc.8)")
	loss := fs.String("loss", "idle", "how the session is lost: idle (server idle timeout) or forget (restart)")
	idle := fs.Duration("idle", repro.DefaultIdleTimeout, "server session idle timeout with -loss idle")
	reconnect := fs.Duration("reconnect-initial", 0, "client's first reconnect delay (0: the client's default, 500ms)")
	within := fs.Duration("within", repro.DefaultRecoverWithin, "a call must succeed this soon after the first failed one")
	runs := fs.Int("runs", 0, "benchmark: runs per server (patched client, reactive and with the trigger)")
	markdown := fs.Bool("markdown", false, "benchmark: print markdown table rows (for docs/BENCHMARKS.md)")
	if err := fs.Parse(args); err != nil {
		return config{}, err
	}
	if fs.NArg() > 0 {
		return config{}, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	c := config{runs: *runs, markdown: *markdown, base: repro.Options{
		Loss: repro.LossMode(*loss), IdleTimeout: *idle, ReconnectInitial: *reconnect, RecoverWithin: *within,
	}}
	for _, s := range strings.Split(*servers, ",") {
		c.servers = append(c.servers, repro.ServerKind(strings.TrimSpace(s)))
	}
	for _, s := range strings.Split(*clients, ",") {
		c.clients = append(c.clients, repro.ClientKind(strings.TrimSpace(s)))
	}
	if c.runs < 0 {
		return config{}, fmt.Errorf("-runs %d: want 0 or more", c.runs)
	}
	return c, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c, err := parse(args, stderr)
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stderr, "repro:", err)
		}
		return 2
	}
	if c.runs > 0 {
		err = bench(ctx, c, stdout, stderr)
	} else {
		err = matrix(ctx, c, stdout)
	}
	if err != nil {
		fmt.Fprintln(stderr, "repro:", err)
		if errors.Is(err, repro.ErrBadOptions) {
			return 2
		}
		return 1
	}
	return 0
}

var errUnexpected = errors.New("a client did not behave as expected (unpatched: STUCK, patched: RECOVERED)")

// matrix runs every server × client × {unpatched, patched} and prints a line each.
func matrix(ctx context.Context, c config, stdout io.Writer) error {
	fmt.Fprintf(stdout, rowFormat, "SERVER", "CLIENT", "PATCH", "VERDICT", "FIRST CALL AFTER THE LOSS", "RECOVERED")
	ok := true
	for _, srv := range c.servers {
		for _, cl := range c.clients {
			for _, patched := range []bool{false, true} {
				o := c.base
				o.Server, o.Client, o.Patched = srv, cl, patched
				r, err := repro.Run(ctx, o)
				if err != nil {
					return fmt.Errorf("%s, %s, %s: %w", srv, cl, patchWord(patched), err)
				}
				want := repro.Stuck
				if patched {
					want = repro.Recovered
				}
				ok = ok && r.Verdict == want
				fmt.Fprintf(stdout, rowFormat, srv, cl, patchWord(patched), r.Verdict, firstCall(r), recovered(r, o))
			}
		}
	}
	if !ok {
		return errUnexpected
	}
	fmt.Fprintln(stdout, "OK: every unpatched client STUCK, every patched client RECOVERED")
	return nil
}

// rowFormat prints a row at once, aligned, so each shows as its run ends.
const rowFormat = "%-7s  %-8s  %-9s  %-9s  %-25s  %s\n"

func patchWord(patched bool) string {
	if patched {
		return "patched"
	}
	return "unpatched"
}

func firstCall(r repro.Result) string {
	switch {
	case !r.FirstCallFailed:
		return "succeeded"
	case r.FirstCallStatus != 0:
		return fmt.Sprintf("failed (HTTP %d)", r.FirstCallStatus)
	default:
		return "failed (" + r.FirstCallError + ")"
	}
}

func recovered(r repro.Result, o repro.Options) string {
	if r.Verdict != repro.Recovered {
		return fmt.Sprintf("no call succeeded within %v", o.RecoverWithin)
	}
	return fmt.Sprintf("%d ms after the loss", r.RecoveredAfter.Milliseconds())
}

func seconds(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }

// bench measures the patched stand-in per server: reactive, then with the trigger.
func bench(ctx context.Context, c config, stdout, stderr io.Writer) error {
	for _, srv := range c.servers {
		for _, trigger := range []bool{false, true} {
			o := c.base
			o.Server, o.Client, o.Patched, o.Trigger = srv, c.clients[0], true, trigger
			fmt.Fprintf(stderr, "repro: %d runs, %s, %s, trigger %v\n", c.runs, srv, o.Client, trigger)
			b, err := repro.Bench(ctx, o, c.runs)
			if err != nil {
				return fmt.Errorf("%s: %w", srv, err)
			}
			printBench(stdout, c, srv, trigger, b)
		}
	}
	return nil
}

func printBench(w io.Writer, c config, srv repro.ServerKind, trigger bool, b repro.BenchResult) {
	times := fmt.Sprintf("median %s (min %s, max %s; %d of %d recovered)",
		seconds(b.Median), seconds(b.Min), seconds(b.Max), b.Recovered, b.Runs)
	if !trigger {
		met := b.Recovered == b.Runs && b.Median < 2*time.Second
		if c.markdown {
			fmt.Fprintf(w, "| client patch, reactive fix: session loss → recovered call, %s server, %d runs | %s | median < 2 s | %s |\n",
				srv, b.Runs, times, verdict(met))
			return
		}
		fmt.Fprintf(w, "%s reactive: %s; goal median < 2 s: %s\n", srv, times, plain(met))
		return
	}
	met := b.FailedFirstCalls == 0
	if c.markdown {
		fmt.Fprintf(w, "| client patch with the recovery trigger: failed user calls after a session loss, %s server, %d runs | %d failed (loss → recovered %s) | 0 | %s |\n",
			srv, b.Runs, b.FailedFirstCalls, times, verdict(met))
		return
	}
	fmt.Fprintf(w, "%s trigger: %d of %d first calls failed; %s; goal 0 failed: %s\n", srv, b.FailedFirstCalls, b.Runs, times, plain(met))
}

func verdict(met bool) string {
	if met {
		return "met"
	}
	return "**missed**"
}

func plain(met bool) string {
	if met {
		return "met"
	}
	return "MISSED"
}
