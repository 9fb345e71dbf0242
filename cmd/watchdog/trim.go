package main

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

// trimLoop lets go of the binary's pages the daemon is not using
// (trimBinaryPages), until ctx ends. A failure is logged once and ends it.
func trimLoop(ctx context.Context, log *slog.Logger) {
	t := time.NewTimer(trimFirst)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if err := trimBinaryPages(); err != nil {
			log.Warn("cannot let go of the binary's unused pages; resident memory stays higher", "err", err)
			return
		}
		t.Reset(trimEvery)
	}
}
