package repro

import (
	"context"
	"fmt"
	"slices"
	"time"
)

// BenchResult summarises repeated runs with the same options.
type BenchResult struct {
	Runs      int
	Recovered int // runs whose verdict was RECOVERED
	// FailedFirstCalls counts runs whose first call after the loss failed:
	// the user-visible failures (with the trigger the goal is none).
	FailedFirstCalls int
	// Median, Min and Max are over the recovered runs' RecoveredAfter.
	Median, Min, Max time.Duration
}

// Bench runs o runs times, one after the other, and summarises them.
func Bench(ctx context.Context, o Options, runs int) (BenchResult, error) {
	if runs < 1 {
		return BenchResult{}, fmt.Errorf("%w: %d runs", ErrBadOptions, runs)
	}
	b := BenchResult{Runs: runs}
	var times []time.Duration
	for i := range runs {
		r, err := Run(ctx, o)
		if err != nil {
			return b, fmt.Errorf("run %d of %d: %w", i+1, runs, err)
		}
		if r.FirstCallFailed {
			b.FailedFirstCalls++
		}
		if r.Verdict == Recovered {
			b.Recovered++
			times = append(times, r.RecoveredAfter)
		}
	}
	b.Median, b.Min, b.Max = summarize(times)
	return b, nil
}

// summarize returns the median (the mean of the middle two for an even
// count), minimum and maximum; zeros for none.
func summarize(d []time.Duration) (median, lo, hi time.Duration) {
	if len(d) == 0 {
		return 0, 0, 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	n := len(s)
	median = s[n/2]
	if n%2 == 0 {
		median = (s[n/2-1] + s[n/2]) / 2
	}
	return median, s[0], s[n-1]
}

// RetryBenchResult summarises the retried call of the current patch: the first
// call after the loss, sent once more on the new session inside the client.
type RetryBenchResult struct {
	Runs int
	// FailedFirstCalls counts runs whose first call after the loss failed
	// (the retry's goal is none).
	FailedFirstCalls int
	// Median, Min and Max are over the runs whose first call succeeded:
	// that call's time minus the call before the loss (the added latency
	// of the lost session: the retry's wait for the new session included).
	Median, Min, Max time.Duration
}

// RetryBench runs the client with the current patch runs times with o and measures
// the added latency of the call that met the lost session.
func RetryBench(ctx context.Context, o Options, runs int) (RetryBenchResult, error) {
	if runs < 1 {
		return RetryBenchResult{}, fmt.Errorf("%w: %d runs", ErrBadOptions, runs)
	}
	o.Patched, o.NoRetry, o.Trigger = true, false, false
	b := RetryBenchResult{Runs: runs}
	var added []time.Duration
	for i := range runs {
		r, err := Run(ctx, o)
		if err != nil {
			return b, fmt.Errorf("run %d of %d: %w", i+1, runs, err)
		}
		if r.FirstCallFailed {
			b.FailedFirstCalls++
			continue
		}
		added = append(added, max(0, r.FirstCallTook-r.BeforeCallTook))
	}
	b.Median, b.Min, b.Max = summarize(added)
	return b, nil
}
