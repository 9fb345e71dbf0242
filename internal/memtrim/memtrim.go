// Package memtrim lets go of resident memory a daemon at rest does not
// use: the free pages of its heap after a burst of work (heap.go), and
// the resident pages of the watchdog's own
// binary that a daemon at rest does not use: most of the binary is mapped
// by the time main runs and never touched again. Only Linux's mappings are
// read; elsewhere it does nothing.
package memtrim

import (
	"context"
	"log/slog"
	"time"
)

// Trim times: the first once start-up is over (init, the first scans and
// probes), then now and again, since a burst of work (a flood of log
// lines, proxied calls) maps what it touched again.
const (
	trimFirst = time.Minute
	trimEvery = 10 * time.Minute
)

// Loop lets go of the binary's pages the daemon is not using
// (dropBinaryPages), until ctx ends. A failure is logged once and ends it.
func Loop(ctx context.Context, log *slog.Logger) { LoopEvery(ctx, log, trimFirst, trimEvery) }

// LoopEvery is Loop with its own times: a process whose start-up is short
// (`watchdog stdio`, up once its server is) trims sooner, and one whose
// work is a relay trims the pages a burst mapped again sooner too.
func LoopEvery(ctx context.Context, log *slog.Logger, first, every time.Duration) {
	t := time.NewTimer(first)
	defer t.Stop()
	for looked := false; ; looked = true {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		ok, err := true, error(nil)
		if !looked { // the binary's verdict, read once: it holds for the process's life
			ok, err = selfTrimmable()
		}
		if ok && err == nil {
			err = dropBinaryPages()
		}
		if err != nil {
			log.Warn("cannot let go of the binary's unused pages; resident memory stays higher", "err", err)
		}
		if !ok || err != nil {
			return
		}
		t.Reset(every)
	}
}
