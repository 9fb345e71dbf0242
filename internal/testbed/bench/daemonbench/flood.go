package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/testbed/tailbuf"
)

// Goals of the flood row (issue 15).
const (
	floodRSSGoalMB    = 64
	floodBubblesGoal  = 20
	floodStopGoal     = 2 * time.Second
	floodStopsSampled = 4
)

// flood: lines log lines, half of them loss lines (each followed by a
// reconnect line), written at once to a server log with notifications
// on. Peak RSS is sampled throughout; SIGTERM is sent at several points of
// the flood and of the replay after it; the bubbles are the daemon's
// attempts to show one (journaled when shown, logged when refused).
func (b *bench) flood(ctx context.Context, lines int) error {
	log := filepath.Join(b.dir, "server.log")
	if _, err := appendLine(log, "INFO server started"); err != nil {
		return err
	}
	cfg := strings.Replace(hostTable, "notify = false", "notify = true", 1) +
		serverTable("mem", "http://127.0.0.1:9/mcp", []string{log}, "")
	stderr := &tailbuf.Buffer{Max: 256 << 20}
	b.stderr = stderr
	defer func() { b.stderr = nil }()
	var stops []time.Duration
	peak := int64(0)
	for i := range floodStopsSampled {
		d, err := b.start(ctx, cfg)
		if err != nil {
			return err
		}
		if i == 0 {
			if err := writeFlood(log, lines/2); err != nil {
				d.stop()
				return err
			}
		}
		// Stop at different points: 0.5 s, 1 s, 2 s, 4 s into the run.
		p, took := d.stopAfter(time.Duration(500<<i) * time.Millisecond)
		peak, stops = max(peak, p), append(stops, took)
	}
	d, err := b.start(ctx, cfg)
	if err != nil {
		return err
	}
	if _, err := appendLine(log, floodEndLine); err != nil {
		return err
	}
	_, waitErr := d.next(ctx, "server_mode", 10*time.Minute)
	p, took := d.stopAfter(0)
	peak, stops = max(peak, p), append(stops, took)
	if waitErr != nil {
		return fmt.Errorf("the flood was never read to its end: %w", waitErr)
	}
	return b.floodRow(lines, peak, stops, stderr.String())
}

// floodEndLine journals server_mode: once it is there, the flood before
// it was read.
const floodEndLine = "INFO MCP session idle timeout and restart restore store configured seconds=4242 store_path=/x"

// stopAfter samples RSS for wait, then sends SIGTERM and measures how
// long the daemon takes to exit; it returns the peak RSS in KB.
func (d *daemon) stopAfter(wait time.Duration) (peakKB int64, took time.Duration) {
	end := time.Now().Add(wait)
	for {
		if _, rss, err := procStats(d.cmd.Process.Pid); err == nil {
			peakKB = max(peakKB, rss)
		}
		if time.Now().After(end) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	start := time.Now()
	_ = d.cmd.Process.Signal(syscall.SIGTERM)
	exited := make(chan struct{})
	go func() { _ = d.cmd.Wait(); close(exited) }()
	select {
	case <-exited:
	case <-time.After(time.Minute):
		_ = d.cmd.Process.Kill()
		<-exited
	}
	return peakKB, time.Since(start)
}

func writeFlood(path string, pairs int) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	for range pairs {
		fmt.Fprintln(w, "WARN Session not found session_id=flood")
		fmt.Fprintln(w, "INFO Reconnected to MCP server")
	}
	if err := w.Flush(); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}

// floodRow prints the row: peak RSS, journal size and first record,
// bubbles (shown, journaled as notified, or refused by a machine with no
// notification service, logged), and the slowest stop.
func (b *bench) floodRow(lines int, peakKB int64, stops []time.Duration, stderr string) error {
	journal := filepath.Join(b.dir, "state", "events.jsonl")
	body, err := os.ReadFile(journal)
	if err != nil {
		return err
	}
	recs := bytes.Split(bytes.TrimSpace(body), []byte("\n"))
	firstKept := len(recs) > 0 && bytes.Contains(recs[0], []byte(`"kind":"started"`))
	rotated, _ := filepath.Glob(journal + ".*")
	bubbles := bytes.Count(body, []byte(`"kind":"notified"`)) + strings.Count(stderr, "notification not shown")
	slowest := time.Duration(0)
	for _, s := range stops {
		slowest = max(slowest, s)
	}
	ok := peakKB <= floodRSSGoalMB<<10 && firstKept && len(rotated) == 0 && bubbles <= floodBubblesGoal && slowest <= floodStopGoal
	fmt.Printf("| flood: %d log lines, half loss lines, notifications on, SIGTERM at %d points | peak RSS %.1f MB; %d journal records, first kept: %v, rotations %d; %d bubbles; slowest stop %s | RSS ≤ %d MB, first record kept, ≤ %d bubbles, stop ≤ %s | %s |\n",
		lines, len(stops), float64(peakKB)/1024, len(recs), firstKept, len(rotated), bubbles, ms(slowest),
		floodRSSGoalMB, floodBubblesGoal, floodStopGoal, verdict(ok))
	return nil
}
