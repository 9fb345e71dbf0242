package daemon

import (
	"context"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/mcpwatchdog/watchdog/healer/clientpatch"
	"github.com/mcpwatchdog/watchdog/internal/autostart"
	"github.com/mcpwatchdog/watchdog/internal/control"
	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/host"
	"github.com/mcpwatchdog/watchdog/internal/notify"
	"github.com/mcpwatchdog/watchdog/internal/opener"
	"github.com/mcpwatchdog/watchdog/internal/proxyproc"
	"github.com/mcpwatchdog/watchdog/internal/timeline"
	"github.com/mcpwatchdog/watchdog/tray"
)

// face is what the daemon keeps for its faces beyond the model: the
// notifier, the tray's checkbox, the hosts found, the buttons pressed.
type face struct {
	notifier    *notify.Notifier // nil when notifications are off
	autostartOn bool             // start at login, for the tray's checkbox
	// found: the hosts found on this machine (hostsSource), for the status
	// and the tray's Protect items.
	found   []health.HostSummary
	buttons chan tray.Command // buttons pressed on the notifications
	// work: what the faces' actions do off the loop (a patch, a Protect,
	// the timeline page).
	work sync.WaitGroup
}

// faceEvery refreshes the tray's idle and expiry lines between events.
const faceEvery = 10 * time.Second

// view is what the tray shows (loop goroutine only).
func (d *daemon) view() tray.View {
	warm := make(map[string]bool, len(d.pings.warmOn))
	for k, v := range d.pings.warmOn {
		warm[k] = v
	}
	v := tray.View{Status: d.status(), KeepWarm: warm, AutostartOn: d.face.autostartOn, Now: d.now()}
	if d.face.notifier != nil {
		v.Paused = d.face.notifier.Paused()
	}
	return v
}

// refreshFace hands the tray the current view; the tray coalesces.
func (d *daemon) refreshFace() {
	if d.opts.Tray != nil {
		d.opts.Tray.Update(d.view())
	}
}

// command turns a click into what `watchdog heal` and the CLI would do.
func (d *daemon) command(ctx context.Context, cmd tray.Command) {
	switch cmd.Kind {
	case tray.CmdHeal:
		_, _ = d.healNow(ctx, cmd.Server)
	case tray.CmdKeepWarm:
		if _, ok := d.pings.warmOn[cmd.Server]; ok {
			d.pings.warmOn[cmd.Server] = cmd.On
		}
	case tray.CmdRestartHost:
		d.restartHost(ctx, d.watched.hostFor(cmd.Server), cmd.Server)
	case tray.CmdPatchApply, tray.CmdPatchRevert:
		d.actions(ctx).patch(d.client.look.Module, d.mainHost().prof, cmd.Kind == tray.CmdPatchApply)
	case tray.CmdPauseNotifications:
		if d.face.notifier != nil {
			d.face.notifier.Pause(d.now().Add(time.Hour))
		}
	case tray.CmdOpenTimeline:
		// Since 0: the journal's own span (a week at most), as `watchdog
		// timeline` without --since: a short run fills the page.
		d.actions(ctx).timeline(timeline.WriteOptions{StateDir: d.stateDir, Now: d.now(), Location: time.Local})
	case tray.CmdAutostart:
		d.actions(ctx).autostart(ctx, autostart.ForConfig(autostart.Options{}, d.cfg, control.SocketPath(d.stateDir)), cmd.On)
	case tray.CmdProtect:
		d.protectFromTray(ctx, cmd.Host)
	case tray.CmdQuit:
		d.quit(ctx)
	}
	d.refreshFace()
}

// quitGrace is how long a Quit whose ask of the supervisor seems to have
// failed waits for the supervisor's SIGTERM all the same: systemd's stop
// signals every process of the unit, so the systemctl that asked may die
// of the very stop it asked for.
const quitGrace = time.Second

// quit ends the daemon (the tray's Quit). A supervised daemon first asks
// its supervisor to stop it and its proxy process (Options.StopSupervisor):
// an exit alone is restarted a second later. The ask runs off the loop
// and is not waited for at the stop: launchd's bootout of this daemon's
// own agent returns only once the daemon has exited.
func (d *daemon) quit(ctx context.Context) {
	switch {
	case d.opts.Quit == nil:
	case d.opts.ProxyProcess != proxyproc.Supervised || d.opts.StopSupervisor == nil:
		d.opts.Quit()
	default:
		o := autostart.ForConfig(autostart.Options{}, d.cfg, control.SocketPath(d.stateDir))
		go askStop(ctx, d.log, d.opts.StopSupervisor, o, d.opts.Quit)
	}
}

// askStop asks the supervisor to stop the daemon, then quits: its
// SIGTERM ends the daemon as a stop asked for (the end of ctx); an ask
// that failed ends it too, and the log says why the Quit may not hold.
func askStop(ctx context.Context, log *slog.Logger, stop func(context.Context, autostart.Options) (autostart.Result, error), o autostart.Options, quit func()) {
	defer quit()
	// Not cut short by the SIGTERM it brings: the ask is queued whole.
	res, err := stop(context.WithoutCancel(ctx), o)
	if err == nil && res.Reason == "" {
		log.Info("quit: the supervisor stops the watchdog and its proxy process until the next login", "did", res.Did)
		return
	}
	select {
	case <-ctx.Done(): // the stop came all the same
	case <-time.After(quitGrace):
		log.Warn("Quit may not hold: the supervisor was not asked to stop the watchdog: "+restartsAgain(res.Kind), "reason", res.Reason, "err", err)
	}
}

// restartsAgain says what a supervisor of kind k does after the daemon's
// exit, and how to stop it by hand.
func restartsAgain(k autostart.Kind) string {
	name := "systemd"
	switch k {
	case autostart.Systemd:
	case autostart.LaunchAgent:
		name = "launchd"
	default:
		return "a supervisor running it starts it again after it exits"
	}
	return name + " starts it again a second after it exits; stop it with: " + k.StopCommand()
}

// faceActions do what the faces ask that takes a while, off the loop
// (work owns their goroutines); what the loop must know of the outcome
// comes back through report (the reports source), never a call into the
// daemon.
type faceActions struct {
	log    *slog.Logger
	work   *sync.WaitGroup
	report reportFunc
}

func (d *daemon) actions(ctx context.Context) faceActions {
	return faceActions{log: d.log, work: &d.face.work, report: d.reports.reporter(ctx)}
}

// patch applies or reverts the host's client patch in module (it runs
// node --check), then looks at the module again.
func (a faceActions) patch(module string, prof host.Profile, apply bool) {
	if module == "" {
		a.log.Warn("no client module to patch: set host.client_module")
		return
	}
	home, _ := os.UserHomeDir()
	goRun(a.work, func() {
		o := clientpatch.InstallOptions{Host: prof, Home: home}
		var err error
		if apply {
			_, err = clientpatch.Install(module, o)
		} else {
			_, err = clientpatch.Revert(module, o)
		}
		if err != nil {
			a.log.Error("client patch from the tray failed", "apply", apply, "err", err)
		}
		st := clientpatch.LookAt(module, clientpatch.InspectOptions{Host: prof, Home: home})
		a.report(clientIn{st})
	})
}

// autostart installs or removes the supervisor o describes (this daemon's
// config and sockets), off the loop (systemctl may take a while). It
// starts or stops nothing now: this daemon runs, and the supervisor's
// sockets would clash with its own.
func (a faceActions) autostart(ctx context.Context, o autostart.Options, on bool) {
	goRun(a.work, func() {
		var res autostart.Result
		var err error
		if on {
			res, err = autostart.Supervise(ctx, o)
		} else {
			res, err = autostart.Unsupervise(ctx, o)
		}
		if err != nil {
			a.log.Error("start at login", "on", on, "err", err)
		}
		if res.Reason != "" {
			a.log.Warn("start at login", "on", on, "kind", res.Kind, "note", res.Reason)
		}
		a.report(autostartIn{autostartEnabled()})
	})
}

func autostartEnabled() bool {
	st, err := autostart.Status(autostart.Options{})
	return err == nil && st.Enabled
}

// timeline writes the timeline page and opens it, off the loop: reading
// a week of journal takes a moment.
func (a faceActions) timeline(o timeline.WriteOptions) {
	goRun(a.work, func() {
		path, err := timeline.WriteFile(o)
		if err == nil {
			err = opener.Open(path)
		}
		if err != nil {
			a.log.Warn("cannot show the timeline", "err", err)
		}
	})
}
