package daemon

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/mcpwatchdog/watchdog/healer"
	"github.com/mcpwatchdog/watchdog/internal/control"
	"github.com/mcpwatchdog/watchdog/internal/health"
)

// restartConfirmWithin: after a host restart, a new session of its client
// must appear within this long, or the heal failed.
const restartConfirmWithin = 60 * time.Second

// healing is the daemon's heal machinery; its fields are used on the loop
// goroutine only, except the restarter, which runs restarts in wg.
type healing struct {
	limiter   *healer.RestartLimiter
	restarter *healer.Restarter
	wg        sync.WaitGroup
}

func newHealing(d *daemon) *healing {
	return &healing{
		limiter: healer.NewRestartLimiter(healer.DefaultRestartPolicy()),
		restarter: healer.NewRestarter(healer.RestartOptions{Argv: d.cfg.Host.Restart,
			LogPath: filepath.Join(d.stateDir, hostLogName), Logger: d.log}),
	}
}

func (h *healing) close() {
	h.wg.Wait()
	_ = h.restarter.Close()
}

// patchState is what the watchdog knows of the host client's fix.
func (d *daemon) patchState() healer.PatchState {
	if d.opts.Patch != nil {
		return *d.opts.Patch
	}
	return healer.PatchStateOf(d.client.Status)
}

// react starts healing for every incident that evs opened.
func (d *daemon) react(ctx context.Context, evs []health.Event) {
	for _, ev := range evs {
		if ev.Kind == health.EvSessionLost && ev.Incident {
			d.healServer(ctx, ev.Server, false)
		}
	}
}

// healServer climbs the heal ladder for one server's open incident and
// says which strategy it took ("" when it gave up).
func (d *daemon) healServer(ctx context.Context, server string, userAsked bool) health.Strategy {
	in := healer.LadderInput{Patch: d.patchState(), AutoRestart: d.cfg.Host.AutoRestart, UserAsked: userAsked,
		CanRestart: len(d.cfg.Host.Restart) > 0, HostName: d.cfg.Host.Name}
	step := healer.Next(in)
	switch step.Strategy {
	case healer.StrategyHostRestart:
		d.restartHost(ctx, server)
	case healer.StrategyClientRecovery:
		d.triggerRecovery(ctx, server, in)
	case healer.StrategyReconnect:
		d.apply(ctx, health.Signal{Kind: health.SigHealStarted, Server: server, Strategy: step.Strategy,
			Detail: "the patched client reconnects on its next call"})
	case "":
		d.apply(ctx, health.Signal{Kind: health.SigHealFailed, Server: server,
			Detail: fmt.Sprintf("%s cannot heal itself: %s", server, step.Advice)})
	}
	return step.Strategy
}

// triggerRecovery asks the patched client to reconnect now, before the
// user's next call meets the dead session; a new session of the client
// must follow within TriggerConfirmWithin.
func (d *daemon) triggerRecovery(ctx context.Context, server string, in healer.LadderInput) {
	home, err := d.opts.Home, error(nil)
	if home == "" { // the demo writes its triggers into its own temp home
		home, err = os.UserHomeDir()
	}
	if err == nil {
		err = healer.WriteTrigger(home, server, d.now())
	}
	if err != nil {
		d.apply(ctx, health.Signal{Kind: health.SigHealFailed, Server: server, Strategy: healer.StrategyClientRecovery,
			Detail: fmt.Sprintf("cannot trigger the client's recovery: %v", err)})
		if next := healer.AfterFailure(healer.StrategyClientRecovery, in); next.Strategy == healer.StrategyHostRestart {
			d.restartHost(ctx, server)
		}
		return
	}
	d.apply(ctx, health.Signal{Kind: health.SigHealStarted, Server: server, Strategy: healer.StrategyClientRecovery,
		Within: healer.TriggerConfirmWithin, Detail: "triggered the patched client's recovery"})
}

// restartHost restarts the host within the limits, in the background; the
// recovery shows as a new session of its client (model), or fails.
func (d *daemon) restartHost(ctx context.Context, server string) {
	now := d.now()
	if dec := d.heal.limiter.Decide(now); !dec.OK {
		advice := "it is retried then"
		if dec.Limited || !d.cfg.Host.AutoRestart {
			advice = "restart it yourself"
		}
		d.apply(ctx, health.Signal{Kind: health.SigHealFailed, Server: server, Strategy: healer.StrategyHostRestart,
			Detail: fmt.Sprintf("not restarting %s now: %s; %s", d.cfg.Host.Name, dec.Reason, advice)})
		return
	}
	d.heal.limiter.Record(now)
	d.apply(ctx, health.Signal{Kind: health.SigHealStarted, Server: server, Strategy: healer.StrategyHostRestart,
		Within: restartConfirmWithin, Detail: fmt.Sprintf("restarting %s", d.cfg.Host.Name)})
	pid := d.model.Status(now).Host.PID
	d.heal.wg.Add(1)
	go func() {
		defer d.heal.wg.Done()
		res, err := d.heal.restarter.Restart(ctx, pid)
		if err == nil {
			d.log.Info("host restarted", "old_pid", res.StoppedPID, "new_pid", res.NewPID, "killed", res.Killed)
			return
		}
		detail := fmt.Sprintf("restarting %s failed: %v", d.cfg.Host.Name, err)
		if errors.Is(err, healer.ErrCommandNotFound) || errors.Is(err, healer.ErrNoRestartCommand) {
			detail += "; set host.restart in the config to the command that starts it"
		}
		d.signal(ctx, health.Signal{Kind: health.SigHealFailed, Server: server, Strategy: healer.StrategyHostRestart, Detail: detail})
	}()
}

// healNow answers `watchdog heal [SERVER]`: every named server (or all)
// with an open incident climbs the ladder as if the user clicked "heal".
func (d *daemon) healNow(ctx context.Context, server string) (map[string]string, error) {
	if server != "" && !d.hasServer(server) {
		return nil, fmt.Errorf("%w: %q", control.ErrUnknownServer, server)
	}
	taken := map[string]string{}
	for _, s := range d.cfg.Servers {
		if server != "" && s.Name != server {
			continue
		}
		if _, _, open := d.model.Incident(s.Name); !open {
			taken[s.Name] = "nothing to heal"
			continue
		}
		if st := d.healServer(ctx, s.Name, true); st != "" {
			taken[s.Name] = string(st)
		} else {
			taken[s.Name] = "gave up (see the heal_failed event)"
		}
	}
	return taken, nil
}

// retryRestarts restarts the host again, once its backoff allows, for
// incidents that auto_restart did not heal yet.
func (d *daemon) retryRestarts(ctx context.Context, now time.Time) {
	if !d.cfg.Host.AutoRestart || len(d.cfg.Host.Restart) == 0 || !d.heal.limiter.Decide(now).OK {
		return
	}
	for _, s := range d.model.Status(now).Servers {
		if s.State == health.Lost {
			d.restartHost(ctx, s.Name)
			return
		}
	}
}

// noteHealth feeds the restart limiter how long everything has been fine:
// after an hour of health its backoff starts over.
func (d *daemon) noteHealth(now time.Time) {
	for _, s := range d.cfg.Servers {
		if _, _, open := d.model.Incident(s.Name); open {
			d.heal.limiter.Unhealthy()
			d.healthySince = time.Time{}
			return
		}
	}
	if d.healthySince.IsZero() {
		d.healthySince = now
	}
	d.heal.limiter.Healthy(d.healthySince)
}
