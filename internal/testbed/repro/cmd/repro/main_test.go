package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/testbed/repro"
)

func TestParse(t *testing.T) {
	t.Parallel()
	c, err := parse([]string{"-servers", "ts-sdk", "-clients", "real, stand-in", "-runs", "10", "-loss", "forget", "-within", "3s"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.servers) != 1 || c.servers[0] != repro.TSSDK || len(c.clients) != 2 || c.clients[1] != repro.StandIn ||
		c.runs != 10 || c.base.Loss != repro.LossForget || c.base.RecoverWithin != 3*time.Second {
		t.Fatalf("parsed %+v", c)
	}
	if c, err := parse([]string{"-retry-bench", "-runs", "10"}, io.Discard); err != nil || !c.retry || c.runs != 10 {
		t.Fatalf("-retry-bench -runs 10: %+v, %v", c, err)
	}
	for _, bad := range [][]string{{"-runs", "-1"}, {"extra"}, {"-nope"}, {"-retry-bench"}} {
		if _, err := parse(bad, io.Discard); err == nil {
			t.Errorf("parse(%q) accepted it", bad)
		}
	}
}

// TestBadOptionsExitTwo: an unknown server is a usage error, found before
// anything starts.
func TestBadOptionsExitTwo(t *testing.T) {
	t.Parallel()
	var stderr bytes.Buffer
	if code := run(context.Background(), []string{"-servers", "rust"}, io.Discard, &stderr); code != 2 {
		t.Fatalf("exit %d, want 2 (stderr %q)", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "rust") {
		t.Errorf("stderr %q does not name the bad server", stderr.String())
	}
}

func TestPrintBench(t *testing.T) {
	t.Parallel()
	b := repro.BenchResult{Runs: 10, Recovered: 10, Median: 640 * time.Millisecond, Min: 600 * time.Millisecond, Max: 700 * time.Millisecond}
	tests := []struct {
		markdown, trigger bool
		b                 repro.BenchResult
		want              string
	}{
		{true, false, b, "| median 0.64 s (min 0.60 s, max 0.70 s; 10 of 10 recovered) | median < 2 s | met |"},
		{false, false, repro.BenchResult{Runs: 10, Recovered: 9, Median: time.Second}, "MISSED"},
		{true, true, repro.BenchResult{Runs: 10, Recovered: 10, FailedFirstCalls: 1}, "| 1 failed (loss → recovered"},
		{false, true, b, "0 of 10 first calls failed"},
	}
	for _, tc := range tests {
		var out bytes.Buffer
		printBench(&out, config{markdown: tc.markdown}, repro.GoSDK, tc.trigger, tc.b)
		if !strings.Contains(out.String(), tc.want) {
			t.Errorf("printBench(markdown %v, trigger %v) = %q, want it to contain %q", tc.markdown, tc.trigger, out.String(), tc.want)
		}
	}
}

func TestPrintRetryBench(t *testing.T) {
	t.Parallel()
	tests := []struct {
		markdown bool
		b        repro.RetryBenchResult
		want     string
	}{
		{true, repro.RetryBenchResult{Runs: 10, Median: 30 * time.Millisecond, Min: 20 * time.Millisecond, Max: 50 * time.Millisecond},
			"| median 30.0 ms (min 20.0 ms, max 50.0 ms); 0 of 10 first calls failed | ≤ 37 ms (mcp-remote 0.15.1), no failed call | met |"},
		{true, repro.RetryBenchResult{Runs: 10, Median: 80 * time.Millisecond}, "| **missed** |"},
		{false, repro.RetryBenchResult{Runs: 10, FailedFirstCalls: 1, Median: 10 * time.Millisecond}, "1 of 10 first calls failed; anchor 37 ms, no failed call: MISSED"},
	}
	for _, tc := range tests {
		var out bytes.Buffer
		printRetryBench(&out, config{markdown: tc.markdown}, repro.GoSDK, repro.Real, tc.b)
		if !strings.Contains(out.String(), tc.want) {
			t.Errorf("printRetryBench(markdown %v) = %q, want it to contain %q", tc.markdown, out.String(), tc.want)
		}
	}
}
