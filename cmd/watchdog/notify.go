package main

import (
	"context"
	"sync"

	"github.com/mcpwatchdog/watchdog/internal/journal"
	"github.com/mcpwatchdog/watchdog/internal/notify"
)

// startNotifier sends desktop notifications (one per incident) when the
// config's notify is on; its incident state is rebuilt from the journal so
// a loss notified before a restart still gets its "recovered".
func (d *daemon) startNotifier(ctx context.Context, wg *sync.WaitGroup, recs []journal.Record) {
	if !d.cfg.Notify {
		return
	}
	d.notifier = notify.New(notify.Options{Logger: d.log, Send: d.opts.send})
	d.notifier.Restore(recs)
	goRun(wg, func() { _ = d.notifier.Run(ctx) })
}
