package main

import (
	"context"
	"fmt"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/testbed/bench/loadgen"
)

// proxyHeld prints one row per count: the watchdog's RSS with that many
// idle host sessions held through its proxy (opened, then silent, their
// connections closed), against its RSS before the first.
func (b *bench) proxyHeld(ctx context.Context, counts []int) error {
	for _, n := range counts {
		if err := b.heldOnce(ctx, n); err != nil {
			return fmt.Errorf("%d held sessions: %w", n, err)
		}
	}
	return nil
}

func (b *bench) heldOnce(ctx context.Context, n int) error {
	p, err := b.startProxied(ctx, "mcp-go")
	if err != nil {
		return err
	}
	defer p.stop()
	pid := p.d.cmd.Process.Pid
	time.Sleep(b.heldSettle)
	_, before, err := procStats(pid)
	if err != nil {
		return err
	}
	hc := loadgen.Client(32)
	start := time.Now()
	if _, err := loadgen.Open(ctx, hc, p.url, n, 32); err != nil {
		return err
	}
	took := time.Since(start)
	hc.CloseIdleConnections()
	time.Sleep(b.heldSettle)
	_, after, err := procStats(pid)
	if err != nil {
		return err
	}
	per := float64(after-before) * 1024 / float64(n)
	goals := []goal{{fmt.Sprintf("≤ %d KiB per session", maxHeldSession>>10), per <= maxHeldSession}}
	if n >= 10000 {
		goals = append(goals, goal{fmt.Sprintf("RSS ≤ %d MB", maxHeldRSS>>20), after<<10 <= maxHeldRSS})
	}
	fmt.Printf("| proxy: %d idle host sessions held (opened 32 at a time in %.1f s, then silent, connections closed), mcp-go server | "+
		"%.1f KiB per session (RSS %.1f → %.1f MB) | %s | %s |\n", n, took.Seconds(), per/1024, mb(before), mb(after), goalList(goals), verdicts(goals))
	return nil
}
