package main

import (
	"context"
	"fmt"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/testbed/bench/loadgen"
)

// proxyHeld prints one row per count: the growth of the watchdog's
// anonymous memory (heap and stacks: what sessions cost; the binary's own
// pages are not theirs) with that many idle host sessions held through
// its proxy (opened, then silent, their connections closed), and its RSS.
// A last row takes the cost of a session beyond the first count from
// the growth of the first and last: what each further session costs, the
// fixed cost of the first burst (connection pools, the heap it grew)
// aside.
func (b *bench) proxyHeld(ctx context.Context, counts []int) error {
	grew := make([]int64, len(counts)) // KB
	for i, n := range counts {
		var err error
		if grew[i], err = b.heldOnce(ctx, n); err != nil {
			return fmt.Errorf("%d held sessions: %w", n, err)
		}
	}
	if k := len(counts) - 1; k > 0 && counts[k] > counts[0] {
		per := float64(grew[k]-grew[0]) * 1024 / float64(counts[k]-counts[0])
		fixed := float64(grew[0]) - per*float64(counts[0])/1024
		g := []goal{{what: fmt.Sprintf("≤ %d KiB per session", maxHeldSession>>10), met: per <= maxHeldSession}}
		fmt.Printf("| proxy: each idle host session held beyond the first %d (from the growth of the two rows above) | "+
			"%.1f KiB per session; fixed cost of the first burst %.1f MB | %s | %s |\n", counts[0], per/1024, fixed/1024, goalList(g), verdicts(g))
	}
	return nil
}

// heldOnce prints the row of n sessions and returns the RSS growth (KB).
func (b *bench) heldOnce(ctx context.Context, n int) (int64, error) {
	p, err := b.startProxied(ctx, "mcp-go")
	if err != nil {
		return 0, err
	}
	defer p.stop()
	pid := p.d.cmd.Process.Pid
	time.Sleep(b.heldSettle)
	anon0, _, err := rssSplit(pid)
	if err != nil {
		return 0, err
	}
	hc := loadgen.Client(32)
	start := time.Now()
	if _, err := loadgen.Open(ctx, hc, p.url, n, 32); err != nil {
		return 0, err
	}
	took := time.Since(start)
	hc.CloseIdleConnections()
	time.Sleep(b.heldSettle)
	_, rss, err := procStats(pid)
	if err != nil {
		return 0, err
	}
	anon, file, err := rssSplit(pid)
	if err != nil {
		return 0, err
	}
	per := float64(anon-anon0) * 1024 / float64(n)
	goals := []goal{{what: fmt.Sprintf("≤ %d KiB per session", maxHeldSession>>10), met: per <= maxHeldSession}}
	if n >= 10000 {
		goals = append(goals, goal{what: fmt.Sprintf("RSS ≤ %d MB", maxHeldRSS>>20), met: rss<<10 <= maxHeldRSS})
	}
	fmt.Printf("| proxy: %d idle host sessions held (opened 32 at a time in %.1f s, then silent, connections closed), mcp-go server | "+
		"%.1f KiB per session (anonymous RSS: heap, stacks %.1f → %.1f MB; RSS then %.1f MB, %.1f of it the binary's pages) | %s | %s |\n",
		n, took.Seconds(), per/1024, mb(anon0), mb(anon), mb(rss), mb(file), goalList(goals), verdicts(goals))
	return anon - anon0, nil
}
