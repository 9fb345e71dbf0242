package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// firstMinuteGoal is the first minute's CPU goal, as a share of one core:
// no more than the larger idle row's, although start-up's re-checks,
// first liveness checks and first trims fall in it.
const firstMinuteGoal = 0.1

// idleRow is the row of mode idle, or of firstminute (runs of it).
func (b *bench) idleRow(ctx context.Context, mode string, files, servers, runs int, window time.Duration) error {
	if mode == "firstminute" {
		return b.firstMinute(ctx, files, servers, runs, window)
	}
	return b.idle(ctx, files, servers, window)
}

// firstMinute measures the daemon of the larger idle row (200 files, 50
// servers that do not answer) over its first minute: window after a
// settle of b.settle, a new daemon each run. CPU counts the processes the
// daemon started and waited for (a `npm root -g` is half a second of a
// core) beside its own threads; the verdict is the median run's.
func (b *bench) firstMinute(ctx context.Context, files, servers, runs int, window time.Duration) error {
	var all []idleFigures
	for range max(runs, 1) {
		f, err := b.measureIdle(ctx, files, servers, window)
		if err != nil {
			return err
		}
		all = append(all, f)
	}
	byCPU := slices.Clone(all)
	slices.SortFunc(byCPU, func(a, b idleFigures) int { return cmpFloat(a.cpuPct+a.childPct, b.cpuPct+b.childPct) })
	med := byCPU[len(byCPU)/2]
	each := make([]string, len(all))
	for i, f := range all {
		each[i] = fmt.Sprintf("%.3f%%", f.cpuPct+f.childPct)
		if f.childPct > 0 {
			each[i] += fmt.Sprintf(" (%.3f%% of it in processes it started)", f.childPct)
		}
	}
	total := med.cpuPct + med.childPct
	fmt.Printf("| headless, the first minute: %s after %s running, %d files, %d servers (none answering), median of %d runs | CPU %.3f%% (each run: %s), RSS %.1f MB (anon %.1f, file %.1f), %.0f wakeups/min, %d pages read back, machine's CPU stolen %.1f%% | CPU ≤ %.2f%%, the processes it starts included | %s |\n",
		window, b.settle, files, servers, len(all), total, strings.Join(each, ", "), mb(med.rssKB), mb(med.anonKB), mb(med.fileKB),
		med.wakeupsPerMin, med.majorFaults, med.stealPct, firstMinuteGoal, verdict(total <= firstMinuteGoal))
	return nil
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
