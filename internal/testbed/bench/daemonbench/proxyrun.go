package main

import (
	"context"
	"fmt"
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
// goals that apply to it.
func printLoadRow(server string, c int, f loadFigures) {
	ratio := f.through.PerSecond() / f.straight.PerSecond()
	addedP50 := f.through.Quantile(0.5) - f.straight.Quantile(0.5)
	addedP99 := f.through.Quantile(0.99) - f.straight.Quantile(0.99)
	cpuPerCall := f.cpu / time.Duration(max(f.through.Calls, 1))
	connsPer1000 := float64(f.upstreamConns) * 1000 / float64(max(f.through.Calls, 1))
	goal := fmt.Sprintf("ratio ≥ %.1f, CPU ≤ %d µs/call, connections ≤ %d per 1,000", minRatio, maxCPUPerCall.Microseconds(), c)
	ok := ratio >= minRatio && cpuPerCall <= maxCPUPerCall && connsPer1000 <= float64(c)
	switch c {
	case 1:
		goal += ", added p50 ≤ 0.1 ms"
		ok = ok && addedP50 <= maxAddedP50C1
	case 8:
		goal += ", added p99 ≤ 1 ms"
		ok = ok && addedP99 <= maxAddedP99C8
	}
	fmt.Printf("| proxy under load: %d sessions calling echo in a loop, %s server, straight and through the proxy alternated | "+
		"%.0f → %.0f calls/s, ratio %.2f; p50 %s → %s (added %s), p99 %s → %s (added %s); watchdog CPU %.0f µs per proxied call; "+
		"%.1f upstream connections per 1,000 calls (%d over %d calls) | %s | %s |\n",
		c, server, f.straight.PerSecond(), f.through.PerSecond(), ratio,
		msf(f.straight.Quantile(0.5)), msf(f.through.Quantile(0.5)), msf(addedP50),
		msf(f.straight.Quantile(0.99)), msf(f.through.Quantile(0.99)), msf(addedP99),
		float64(f.cpu.Microseconds())/float64(max(f.through.Calls, 1)), connsPer1000, f.upstreamConns, f.through.Calls, goal, verdict(ok))
}

func msf(d time.Duration) string { return fmt.Sprintf("%.3f ms", float64(d.Nanoseconds())/1e6) }
