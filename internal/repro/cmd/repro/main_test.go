package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/repro"
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
	for _, bad := range [][]string{{"-runs", "-1"}, {"extra"}, {"-nope"}} {
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
