package daemon

import (
	"context"
	"runtime"
	"sync"
	"time"

	"github.com/mcpwatchdog/watchdog/healer"
	"github.com/mcpwatchdog/watchdog/internal/config"
	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/journal"
	"github.com/mcpwatchdog/watchdog/internal/metrics"
	"github.com/mcpwatchdog/watchdog/internal/notify"
	"github.com/mcpwatchdog/watchdog/internal/notify/fdo"
	"github.com/mcpwatchdog/watchdog/internal/stream"
	"github.com/mcpwatchdog/watchdog/tray"
)

// facesOf is the registry of the daemon's faces: each follows the one
// stream of events (stream.Face), and a new one is a line here. n is the
// notifier (nil: notify is off, or the daemon is not served); a test's
// faces come through Options.faces, registered as a new face would be.
func (d *daemon) facesOf(n *notify.Notifier) []stream.Face {
	faces := []stream.Face{d.metrics}
	if n != nil {
		faces = append(faces, n)
	}
	return append(faces, d.opts.faces...)
}

// startFaces starts the faces' stream, the notifier among them.
func (d *daemon) startFaces(ctx context.Context, wg *sync.WaitGroup, recs []journal.Record) {
	d.events = stream.New(d.facesOf(d.startNotifier(ctx, wg, recs))...)
	d.events.Start()
}

// startNotifier sends desktop notifications (one per incident) when the
// config's notify is on; its incident state is rebuilt from the journal so
// a loss notified before a restart still gets its "recovered".
func (d *daemon) startNotifier(ctx context.Context, wg *sync.WaitGroup, recs []journal.Record) *notify.Notifier {
	if !d.cfg.Notify {
		return nil
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
	goRun(wg, func() { _ = d.face.notifier.Run(ctx) })
	return d.face.notifier
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

// newMetrics limits metric labels to the configured names and the heal
// ladder's strategies; refused hears of other users' scrapes.
func newMetrics(cfg config.Config, refused func(uid int)) *metrics.Metrics {
	names := make([]string, 0, len(cfg.Servers))
	for _, s := range cfg.Servers {
		names = append(names, s.Name)
	}
	var clients []string
	for _, h := range cfg.Hosts {
		clients = append(clients, h.ClientName)
	}
	return metrics.NewWith(&metrics.Options{Servers: names, Clients: clients,
		Strategies: healer.StrategyNames(), Refused: refused})
}

// gauges refreshes the state and idle gauges from the model (loop only);
// without a metrics listener nobody reads them, so idle work is spared.
func (d *daemon) gauges(now time.Time) {
	if d.cfg.MetricsListen == "" {
		return
	}
	for _, s := range d.modelStatus(now).Servers {
		d.metrics.SetServerState(s.Name, string(s.State))
		d.metrics.ResetSessionIdle(s.Name)
		for _, sess := range s.Sessions {
			if sess.Current {
				d.metrics.SetSessionIdle(s.Name, sess.Client, time.Duration(sess.IdleSeconds)*time.Second)
			}
		}
	}
}

// serveMetrics serves /metrics on metrics_listen when it is set; the config
// has already refused any address that is not loopback.
func (d *daemon) serveMetrics(ctx context.Context, wg *sync.WaitGroup) {
	if d.cfg.MetricsListen == "" {
		return
	}
	goRun(wg, func() {
		if err := metrics.Serve(ctx, d.cfg.MetricsListen, d.metrics, d.log); err != nil {
			d.log.Error("metrics: not served", "listen", d.cfg.MetricsListen, "err", err)
		}
	})
}
