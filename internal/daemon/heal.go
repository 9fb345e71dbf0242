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
	// waiting: servers whose incident opened before the first look at the
	// client module; they are healed on that look (see react).
	waiting map[string]bool
	// limitsPath keeps the limiter's history across runs (restartstate.go);
	// saved is what it holds.
	limitsPath string
	saved      healer.RestartHistory
	bootClock  func() (bootMark, error) // readBootClock; tests set their own
	// warnings: what the start has to journal about the restored limits.
	warnings []health.Event
}

// newHealing restores the restart limits of the last runs: the daemon's
// loop, and every heal with it, starts only after this.
func newHealing(d *daemon) *healing {
	h := &healing{waiting: map[string]bool{},
		limiter: healer.NewRestartLimiter(healer.DefaultRestartPolicy()),
		restarter: healer.NewRestarter(healer.RestartOptions{Argv: d.cfg.Host.Restart,
			LogPath: filepath.Join(d.stateDir, hostLogName), Logger: d.log}),
		limitsPath: filepath.Join(d.stateDir, restartsName), bootClock: readBootClock,
	}
	h.warnings = h.restoreLimits(d.now())
	return h
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
	if !d.cfg.Host.Profile().Patchable() {
		return healer.PatchNone
	}
	return healer.PatchStateOf(d.client.Status)
}

// react starts healing for every incident that evs opened and that is
// still open (the proxy's loss comes with its recovery). Until the
// client module has been looked at, its patch state is unknown and the
// ladder would give a patched client up as unpatched: such an incident
// (a restart's first ping answered 404) waits for that look.
func (d *daemon) react(ctx context.Context, evs []health.Event) {
	for _, ev := range evs {
		if ev.Kind != health.EvSessionLost || !ev.Incident {
			continue
		}
		if _, _, open := d.model.Incident(ev.Server); !open {
			continue
		}
		if d.model.HostHeals() {
			continue // it opens a new session itself; the model closes the incident on it
		}
		if d.opts.Patch == nil && !d.clientSeen && d.cfg.Host.Profile().Patchable() {
			d.heal.waiting[ev.Server] = true
			continue
		}
		d.healServer(ctx, ev.Server, false)
	}
}

// healWaiting heals the incidents that opened before the first look at
// the client module and are still open.
func (d *daemon) healWaiting(ctx context.Context) {
	for server := range d.heal.waiting {
		if _, _, open := d.model.Incident(server); open {
			d.healServer(ctx, server, false)
		}
	}
	clear(d.heal.waiting)
}

// healServer climbs the heal ladder for one server's open incident and
// says which strategy it took ("" when it gave up).
func (d *daemon) healServer(ctx context.Context, server string, userAsked bool) health.Strategy {
	prof := d.cfg.Host.Profile()
	in := healer.LadderInput{Patch: d.patchState(), AutoRestart: d.cfg.Host.AutoRestart, UserAsked: userAsked,
		CanRestart: len(d.cfg.Host.Restart) > 0, HostName: d.cfg.Host.Name, Adopt: prof.AdoptCommand()}
	return healer.Heal(ctx, healActions{d}, server, in)
}

// errNoClientFix: the host's client takes no patch, so it has no trigger
// folder (the ladder never picks the trigger for it: its patch state is none).
var errNoClientFix = errors.New("the host's client takes no patch: it has no recovery trigger")

// healActions are the daemon's hands for the heal ladder's strategies:
// what they do goes through the model, on the loop goroutine.
type healActions struct{ d *daemon }

func (a healActions) Started(ctx context.Context, server string, s health.Strategy, within time.Duration, detail string) {
	a.d.apply(ctx, health.Signal{Kind: health.SigHealStarted, Server: server, Strategy: s, Within: within, Detail: detail})
}

func (a healActions) Failed(ctx context.Context, server string, s health.Strategy, detail string) {
	a.d.apply(ctx, health.Signal{Kind: health.SigHealFailed, Server: server, Strategy: s, Detail: detail})
}

func (a healActions) TriggerDir() (string, error) {
	if !a.d.cfg.Host.Profile().Patchable() {
		return "", errNoClientFix
	}
	home := a.d.opts.Home // the demo writes its triggers into its own temp home
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		home = h
	}
	return filepath.Join(home, a.d.cfg.Host.Profile().Client.TriggerDir), nil
}

func (a healActions) Now() time.Time { return a.d.now() }

func (a healActions) RestartHost(ctx context.Context, server string) error {
	return a.d.tryRestart(ctx, server)
}

// restartHost restarts the host within the limits (see tryRestart), and
// journals why not when it does not.
func (d *daemon) restartHost(ctx context.Context, server string) {
	if err := d.tryRestart(ctx, server); err != nil {
		healActions{d}.Failed(ctx, server, healer.StrategyHostRestart, err.Error())
	}
}

// tryRestart restarts the host within the limits, in the background; the
// recovery shows as a new session of its client (model), or fails. The
// error says why it did not restart now.
func (d *daemon) tryRestart(ctx context.Context, server string) error {
	now := d.now()
	if dec := d.heal.limiter.Decide(now); !dec.OK {
		advice := "it is retried then"
		if dec.Limited || !d.cfg.Host.AutoRestart {
			advice = "restart it yourself"
		}
		return fmt.Errorf("not restarting %s now: %s; %s", d.cfg.Host.Name, dec.Reason, advice)
	}
	d.heal.limiter.Record(now)
	if err := d.heal.saveLimits(now); err != nil {
		// Counted all the same (the safe side): a restart the next run
		// would not know of could escape the limit in a crash loop.
		return fmt.Errorf("not restarting %s: the restart could not be recorded first (%w); "+
			"make the state directory writable (free space, permissions), then heal again", d.cfg.Host.Name, err)
	}
	d.apply(ctx, health.Signal{Kind: health.SigHealStarted, Server: server, Strategy: healer.StrategyHostRestart,
		Within: restartConfirmWithin, Detail: fmt.Sprintf("restarting %s", d.cfg.Host.Name)})
	// The pid with its start time: a pid alone may be another process's by now.
	var host healer.Process
	if pid, started, running := d.model.HostProcess(); running {
		host = healer.Process{PID: pid, Started: started}
	}
	d.heal.wg.Add(1)
	go func() {
		defer d.heal.wg.Done()
		res, err := d.heal.restarter.Restart(ctx, host)
		if err == nil {
			d.log.Info("host restarted", "old_pid", res.StoppedPID, "new_pid", res.NewPID, "killed", res.Killed, "host_gone", res.HostGone)
			return
		}
		detail := fmt.Sprintf("restarting %s failed: %v", d.cfg.Host.Name, err)
		if errors.Is(err, healer.ErrCommandNotFound) || errors.Is(err, healer.ErrNoRestartCommand) {
			detail += "; set host.restart in the config to the command that starts it"
		}
		d.signal(ctx, health.Signal{Kind: health.SigHealFailed, Server: server, Strategy: healer.StrategyHostRestart, Detail: detail})
	}()
	return nil
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
	if name, ok := d.firstLost(now); ok {
		d.restartHost(ctx, name)
	}
}

// restartWait is how long until retryRestarts could restart the host for
// a lost session the limiter's backoff refused; ok is false when it waits
// for nothing (no auto restart, nothing lost, allowed now, or given up).
func (d *daemon) restartWait(now time.Time) (time.Duration, bool) {
	if !d.cfg.Host.AutoRestart || len(d.cfg.Host.Restart) == 0 {
		return 0, false
	}
	if _, lost := d.firstLost(now); !lost {
		return 0, false
	}
	dec := d.heal.limiter.Decide(now)
	return dec.Wait, !dec.OK && dec.Wait > 0
}

// firstLost names the first server whose state is lost.
func (d *daemon) firstLost(now time.Time) (string, bool) {
	for _, s := range d.model.Status(now).Servers {
		if s.State == health.Lost {
			return s.Name, true
		}
	}
	return "", false
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
	if err := d.heal.saveLimitsChanged(now); err != nil {
		d.log.Warn("cannot save the restart history; the next start keeps the longer backoff", "err", err)
	}
}
