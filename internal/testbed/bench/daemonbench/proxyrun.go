package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/testbed/bench/loadgen"
)

// loadOnce opens c sessions straight and c through the proxy, warms both
// up, then alternates windows: straight, proxy, straight, proxy...
func (b *bench) loadOnce(ctx context.Context, p *proxied, c int, window time.Duration, rounds int) (loadFigures, error) {
	var f loadFigures
	direct, err := loadgen.Open(ctx, loadgen.Client(c), p.upstream.URL(), c, c)
	if err != nil {
		return f, fmt.Errorf("straight: %w", err)
	}
	defer direct.Close(ctx)
	through, err := loadgen.Open(ctx, loadgen.Client(c), p.url, c, c)
	if err != nil {
		return f, fmt.Errorf("through the proxy: %w", err)
	}
	defer through.Close(ctx)
	for _, s := range []*loadgen.Sessions{direct, through} { // warm-up: connections, pools, JIT of the caches
		if _, err := s.Run(ctx, window/4); err != nil {
			return f, err
		}
	}
	pid := p.d.cmd.Process.Pid
	for range rounds {
		r, err := direct.Run(ctx, window)
		if err != nil {
			return f, fmt.Errorf("straight: %w", err)
		}
		f.straight = f.straight.Add(r)
		cpu0, err := cpuTime(pid)
		if err != nil {
			return f, err
		}
		conns0 := p.upstream.Accepted()
		r, err = through.Run(ctx, window)
		if err != nil {
			return f, fmt.Errorf("through the proxy: %w", err)
		}
		f.through = f.through.Add(r)
		cpu1, err := cpuTime(pid)
		if err != nil {
			return f, err
		}
		f.cpu += cpu1 - cpu0
		f.upstreamConns += p.upstream.Accepted() - conns0
	}
	return f, nil
}

// printLoadRow prints the row of one server and concurrency, with the
// goals that apply to it; the verdict names each goal missed.
func printLoadRow(server string, c int, f loadFigures) {
	ratio := f.through.PerSecond() / f.straight.PerSecond()
	addedP50 := f.through.Quantile(0.5) - f.straight.Quantile(0.5)
	addedP99 := f.through.Quantile(0.99) - f.straight.Quantile(0.99)
	calls := max(f.through.Calls, 1)
	cpuPerCall := f.cpu / time.Duration(calls)
	connsPer1000 := float64(f.upstreamConns) * 1000 / float64(calls)
	goals := []goal{
		{fmt.Sprintf("ratio ≥ %.1f", minRatio), ratio >= minRatio},
		{fmt.Sprintf("CPU ≤ %d µs/call", maxCPUPerCall.Microseconds()), cpuPerCall <= maxCPUPerCall},
		{fmt.Sprintf("connections ≤ %d per 1,000", c), f.upstreamConns >= 0 && connsPer1000 <= float64(c)},
	}
	switch c {
	case 1:
		goals = append(goals, goal{"added p50 ≤ 0.1 ms", addedP50 <= maxAddedP50C1})
	case 8:
		goals = append(goals, goal{"added p99 ≤ 1 ms", addedP99 <= maxAddedP99C8})
	}
	fmt.Printf("| proxy under load: %d sessions calling echo in a loop, %s server, straight and through the proxy alternated | "+
		"%.0f → %.0f calls/s, ratio %.2f; p50 %s → %s (added %s), p99 %s → %s (added %s); watchdog CPU %.0f µs per proxied call; "+
		"%.1f upstream connections per 1,000 calls (%d over %d calls) | %s | %s |\n",
		c, server, f.straight.PerSecond(), f.through.PerSecond(), ratio,
		msf(f.straight.Quantile(0.5)), msf(f.through.Quantile(0.5)), msf(addedP50),
		msf(f.straight.Quantile(0.99)), msf(f.through.Quantile(0.99)), msf(addedP99),
		float64(f.cpu.Microseconds())/float64(calls), connsPer1000, f.upstreamConns, f.through.Calls, goalList(goals), verdicts(goals))
}

// goal is one goal of a row and whether it was met.
type goal struct {
	what string
	met  bool
}

func goalList(gs []goal) string {
	out := make([]string, len(gs))
	for i, g := range gs {
		out[i] = g.what
	}
	return strings.Join(out, ", ")
}

// verdicts is "met", or "**missed**:" and the goals missed.
func verdicts(gs []goal) string {
	var missed []string
	for _, g := range gs {
		if !g.met {
			missed = append(missed, g.what)
		}
	}
	if len(missed) == 0 {
		return "met"
	}
	return "**missed**: " + strings.Join(missed, "; ") + " (the rest met)"
}

func msf(d time.Duration) string { return fmt.Sprintf("%.3f ms", float64(d.Nanoseconds())/1e6) }
