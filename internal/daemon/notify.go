package daemon

import (
	"context"
	"runtime"
	"sync"

	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/journal"
	"github.com/mcpwatchdog/watchdog/internal/notify"
	"github.com/mcpwatchdog/watchdog/internal/notify/fdo"
	"github.com/mcpwatchdog/watchdog/tray"
)

// startNotifier sends desktop notifications (one per incident) when the
// config's notify is on; its incident state is rebuilt from the journal so
// a loss notified before a restart still gets its "recovered".
func (d *daemon) startNotifier(ctx context.Context, wg *sync.WaitGroup, recs []journal.Record) {
	if !d.cfg.Notify {
		return
	}
	o := notify.Options{Logger: d.log, Send: d.opts.Send, OnSent: d.notified, NameHosts: len(d.watched) > 1}
	if desk := d.desktop(); desk != nil {
		o.Show = desk.Show
		goRun(wg, func() {
			<-ctx.Done()
			_ = desk.Close()
		})
	}
	d.face.notifier = notify.New(o)
	d.face.notifier.Restore(recs)
	d.events.add(notifierFace{d.face.notifier})
	goRun(wg, func() { _ = d.face.notifier.Run(ctx) })
}

// desktop is the notification service on the session bus (Linux), for
// one bubble per incident updated in place, with buttons; nil where there
// is none (or a test sends), and beeep shows the bubbles instead.
func (d *daemon) desktop() *fdo.Desktop {
	if d.opts.Send != nil || runtime.GOOS != "linux" {
		return nil
	}
	desk, err := fdo.Connect(fdo.Options{AppName: "MCP Session Watchdog", Icon: "dialog-information",
		OnAction: d.pressed, Logger: d.log})
	if err != nil {
		d.log.Info("notifications through beeep: no notification service to update bubbles in place", "err", err)
		return nil
	}
	return desk
}

// pressed hands a notification's button to the loop as the tray's click
// would be; a press while the loop is busy with eight others is dropped.
func (d *daemon) pressed(b fdo.Invoked) {
	cmd := tray.Command{Kind: tray.CmdOpenTimeline}
	if b.Action == fdo.ActionHeal {
		cmd = tray.Command{Kind: tray.CmdHeal, Server: b.Server}
	}
	select {
	case d.face.buttons <- cmd:
	default:
		d.log.Warn("notification button dropped: the daemon is busy", "action", b.Action)
	}
}

// notified journals a notification that was shown, so a restart after a
// kill -9 re-sends only what was decided and never shown.
func (d *daemon) notified(m notify.Message) {
	ev := health.Event{Time: d.now(), Kind: health.EvNotified, Server: m.Server,
		Facts: health.Notice{About: m.About, Thread: m.Thread}, Extra: map[string]any{"title": m.Title}, Detail: "notified: " + m.Title}
	d.journal.w.write(ev)
}
