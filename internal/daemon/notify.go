package daemon

import (
	"context"
	"sync"

	"github.com/mcpwatchdog/watchdog/internal/health"
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
	d.notifier = notify.New(notify.Options{Logger: d.log, Send: d.opts.Send, OnSent: d.notified})
	d.notifier.Restore(recs)
	goRun(wg, func() { _ = d.notifier.Run(ctx) })
}

// notified journals a notification that was shown, so a restart after a
// kill -9 re-sends only what was decided and never shown.
func (d *daemon) notified(m notify.Message) {
	ev := health.Event{Time: d.now(), Kind: health.EvNotified, Server: m.Server,
		About: m.About, Extra: map[string]any{"title": m.Title}, Detail: "notified: " + m.Title}
	d.jr.write(ev)
}
