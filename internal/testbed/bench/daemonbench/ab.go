package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// proxyAB measures variants of the watchdog (other builds, or the same
// with another environment: GOMAXPROCS, GODEBUG) beside nginx, HAProxy and
// HAProxy as a byte relay (the floor of any proxy) in front of
// one server, round after round as proxycompare does: the way to tell
// whether a change to the proxy moves its ratio on a shared machine,
// where one run of the whole bench cannot. A variant is
// "name=binary[,ENV=value...]".
func (b *bench) proxyAB(ctx context.Context, server string, variants []string, concs []int, window time.Duration, rounds int) error {
	srv, err := startUpstream(ctx, server)
	if err != nil {
		return err
	}
	defer srv.Close()
	var fronts []*frontend
	defer func() {
		for _, f := range fronts {
			f.stop()
		}
	}()
	for i, v := range variants {
		name, spec, ok := strings.Cut(v, "=")
		if !ok {
			return fmt.Errorf("variant %q: want name=binary[,ENV=value...]", v)
		}
		parts := strings.Split(spec, ",")
		vb := *b
		vb.bin, vb.env, vb.dir = parts[0], parts[1:], filepath.Join(b.dir, fmt.Sprintf("v%d", i))
		if err := os.MkdirAll(vb.dir, 0o700); err != nil {
			return err
		}
		f, err := vb.watchdogFrontend(ctx, srv)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		f.name = name
		fronts = append(fronts, f)
	}
	for _, start := range []func(context.Context, string) (*frontend, error){b.startNginx, b.startHAProxy, b.startRelay} {
		f, err := start(ctx, srv.URL())
		if err != nil {
			return err
		}
		fronts = append(fronts, f)
	}
	fmt.Printf("%s server, %d rounds of %s: ratio median (lowest–highest) · CPU µs per call · added p50 / p99 ms\n", server, rounds, window)
	for _, c := range concs {
		paths, err := b.compareAt(ctx, srv, fronts, c, window, rounds)
		if err != nil {
			return err
		}
		printAB(c, paths)
	}
	return nil
}

// printAB prints one concurrency's rows: each path's ratio, CPU and added
// latency, its ratio round by round, and the tails.
func printAB(c int, paths []*through) {
	for _, t := range paths {
		lo, hi := spread(t.ratios)
		fmt.Printf("conc %3d  %-16s %.2f (%.2f–%.2f) · %5.1f · %.3f / %.3f\n", c, t.f.name, t.ratio(), lo, hi,
			float64(t.cpuPerCall().Nanoseconds())/1000, msOf(t.added(0.5)), msOf(t.added(0.99)))
	}
	for _, t := range paths {
		fmt.Printf("rounds   %-16s %s\n", t.f.name, roundList(t.ratios))
	}
	// The tail, pooled and round by round: a pooled p99 is set by the
	// rounds the machine was busiest, which may fall on any proxy.
	for _, t := range paths {
		fmt.Printf("tail     %-16s p90 / p99 / p99.9 ms %.3f / %.3f / %.3f · added p99 median of rounds %.3f\n", t.f.name,
			msOf(t.proxied.Quantile(0.9)), msOf(t.proxied.Quantile(0.99)), msOf(t.proxied.Quantile(0.999)), msOf(median(t.added99)))
	}
	fmt.Printf("tail     %-16s p90 / p99 / p99.9 ms %.3f / %.3f / %.3f\n", "straight",
		msOf(paths[0].straight.Quantile(0.9)), msOf(paths[0].straight.Quantile(0.99)), msOf(paths[0].straight.Quantile(0.999)))
}

func spread(r []float64) (lo, hi float64) {
	for i, v := range r {
		if i == 0 || v < lo {
			lo = v
		}
		if i == 0 || v > hi {
			hi = v
		}
	}
	return lo, hi
}

// roundList is each round's ratio, in order: what a reader comparing two
// paths round by round (an A/A run of the same build) needs.
func roundList(r []float64) string {
	out := make([]string, len(r))
	for i, v := range r {
		out[i] = fmt.Sprintf("%.3f", v)
	}
	return strings.Join(out, " ")
}
