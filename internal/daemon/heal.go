package daemon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/mcpwatchdog/watchdog/healer"
	"github.com/mcpwatchdog/watchdog/healer/restart"
	"github.com/mcpwatchdog/watchdog/internal/config"
	"github.com/mcpwatchdog/watchdog/internal/control"
	"github.com/mcpwatchdog/watchdog/internal/health"
)

// restartConfirmWithin: after a host restart, a new session of its client
// must appear within this long, or the heal failed.
const restartConfirmWithin = 60 * time.Second

// healing is one host's heal machinery; its fields are used on the loop
// goroutine only, except the restarter, which runs restarts in wg.
type healing struct {
	limiter   *restart.Limiter
	restarter *restart.Restarter
	wg        sync.WaitGroup
	// waiting: servers whose incident opened before the first look at the
	// client module; they are healed on that look (see react).
	waiting map[string]bool
	// limitsPath keeps the limiter's history across runs (restart.ReadHistory);
	// saved is what it holds.
	limitsPath string
	saved      restart.History
	bootClock  func() (restart.BootMark, error) // restart.ReadBootClock; tests set their own
	// warnings: what the start has to journal about the restored limits.
	warnings []health.Event
}

// newHealing restores the restart limits of w's last runs: the daemon's
// loop, and every heal with it, starts only after this.
func newHealing(d *daemon, w *hostWatch) *healing {
	h := &healing{waiting: map[string]bool{},
		limiter: restart.NewLimiter(restart.DefaultPolicy()),
		restarter: restart.New(restart.Options{Argv: w.cfg.Restart,
			LogPath: filepath.Join(d.stateDir, w.fileName("host", ".log")), Logger: d.log.With("host", w.cfg.Name)}),
		limitsPath: filepath.Join(d.stateDir, w.fileName("restarts", ".json")), bootClock: restart.ReadBootClock,
	}
	h.warnings = h.restoreLimits(d.now())
	return h
}

func (h *healing) close() {
	h.wg.Wait()
	_ = h.restarter.Close()
}

// patchState is what the watchdog knows of h's client's fix: only the
// main host's client takes it.
func (d *daemon) patchState(h *hostWatch) healer.PatchState {
	if !h.main {
		return healer.PatchNone
	}
	if d.opts.Patch != nil {
		return *d.opts.Patch
	}
	if !h.prof.Patchable() {
		return healer.PatchNone
	}
	return healer.PatchStateOf(d.client.look.Status)
}

// react starts healing for every incident that evs opened and that is
// still open (the proxy's loss comes with its recovery). Until the
// client module has been looked at, its patch state is unknown and the
// ladder would give a patched client up as unpatched: such an incident
// (a restart's first ping answered 404) waits for that look.
func (d *daemon) react(ctx context.Context, h *hostWatch, evs []health.Event) {
	for _, ev := range evs {
		if l, _ := ev.Facts.(health.Loss); ev.Kind != health.EvSessionLost || !l.Incident {
			continue
		}
		if _, _, open := h.model.Incident(ev.Server); !open {
			continue
		}
		if h.model.HostHeals(ev.Server) {
			continue // it opens a new session itself; the model closes the incident on it
		}
		if h.main && d.opts.Patch == nil && !d.client.seen && h.prof.Patchable() {
			h.heal.waiting[ev.Server] = true
			continue
		}
		d.healServer(ctx, h, ev.Server, false)
	}
}

// healWaiting heals the incidents that opened before the first look at
// the client module and are still open.
func (d *daemon) healWaiting(ctx context.Context) {
	h := d.mainHost()
	for server := range h.heal.waiting {
		if _, _, open := h.model.Incident(server); open {
			d.healServer(ctx, h, server, false)
		}
	}
	clear(h.heal.waiting)
}

// healServer climbs the heal ladder for h's open incident on one server
// and says which strategy it took ("" when it gave up).
func (d *daemon) healServer(ctx context.Context, h *hostWatch, server string, userAsked bool) health.Strategy {
	in := healer.LadderInput{Patch: d.patchState(h), AutoRestart: h.cfg.AutoRestart, UserAsked: userAsked,
		CanRestart: h.canRestart(), OneShot: h.prof.OneShot, HostName: h.cfg.Name, Adopt: h.prof.AdoptCommand()}
	return healer.Heal(ctx, healActions{d, h}, server, in)
}

// errNoClientFix: the host's client takes no patch, so it has no trigger
// folder (the ladder never picks the trigger for it: its patch state is none).
var errNoClientFix = errors.New("the host's client takes no patch: it has no recovery trigger")

// healActions are the daemon's hands for the heal ladder's strategies on
// one host: what they do goes through its model, on the loop goroutine.
type healActions struct {
	d *daemon
	h *hostWatch
}

func (a healActions) Started(ctx context.Context, server string, s health.Strategy, within time.Duration, detail string) {
	a.d.applyFrom(ctx, a.h, health.HealStarted{Server: server, Strategy: s, Within: within, Detail: detail})
}

func (a healActions) Failed(ctx context.Context, server string, s health.Strategy, detail string) {
	a.d.applyFrom(ctx, a.h, health.HealFailed{Server: server, Strategy: s, Detail: detail})
}

func (a healActions) TriggerDir() (string, error) {
	if !a.h.main || !a.h.prof.Patchable() {
		return "", errNoClientFix
	}
	home, err := a.d.homeDir() // the demo writes its triggers into its own temp home
	if err != nil {
		return "", err
	}
	return filepath.Join(home, a.h.prof.Client.TriggerDir), nil
}

func (a healActions) Now() time.Time { return a.d.now() }

func (a healActions) RestartHost(ctx context.Context, server string) error {
	return a.d.tryRestart(ctx, a.h, server)
}

// restartHost restarts h within the limits (see tryRestart), and journals
// why not when it does not.
func (d *daemon) restartHost(ctx context.Context, h *hostWatch, server string) {
	if err := d.tryRestart(ctx, h, server); err != nil {
		healActions{d, h}.Failed(ctx, server, healer.StrategyHostRestart, err.Error())
	}
}

// tryRestart restarts h within the limits, in the background; the
// recovery shows as a new session of its client (model), or fails. The
// error says why it did not restart now.
func (d *daemon) tryRestart(ctx context.Context, h *hostWatch, server string) error {
	now, name := d.now(), h.cfg.Name
	if dec := h.heal.limiter.Decide(now); !dec.OK {
		advice := "it is retried then"
		if dec.Limited || !h.cfg.AutoRestart {
			advice = "restart it yourself"
		}
		return fmt.Errorf("not restarting %s now: %s; %s", name, dec.Reason, advice)
	}
	h.heal.limiter.Record(now)
	if err := h.heal.saveLimits(now); err != nil {
		// Counted all the same (the safe side): a restart the next run
		// would not know of could escape the limit in a crash loop.
		return fmt.Errorf("not restarting %s: the restart could not be recorded first (%w); "+
			"make the state directory writable (free space, permissions), then heal again", name, err)
	}
	d.applyFrom(ctx, h, health.HealStarted{Server: server, Strategy: healer.StrategyHostRestart,
		Within: restartConfirmWithin, Detail: fmt.Sprintf("restarting %s", name)})
	// The pid with its start time: a pid alone may be another process's by now.
	var proc restart.Process
	if pid, started, running := h.model.HostProcess(); running {
		proc = restart.Process{PID: pid, Started: started}
	}
	report := d.reports.reporter(ctx)
	h.heal.wg.Add(1)
	go func() {
		defer h.heal.wg.Done()
		res, err := h.heal.restarter.Restart(ctx, proc)
		if err == nil {
			d.log.Info("host restarted", "host", name, "old_pid", res.StoppedPID, "new_pid", res.NewPID, "killed", res.Killed, "host_gone", res.HostGone)
			return
		}
		detail := fmt.Sprintf("restarting %s failed: %v", name, err)
		if errors.Is(err, restart.ErrCommandNotFound) || errors.Is(err, restart.ErrNoRestartCommand) {
			detail += "; set " + d.hostKey(h) + ".restart in the config to the command that starts it"
		}
		report(signalIn{from: h, o: health.HealFailed{Server: server, Strategy: healer.StrategyHostRestart, Detail: detail}})
	}()
	return nil
}

// hostKey is how the config names h's table (config.HostKey).
func (d *daemon) hostKey(h *hostWatch) string {
	for i, c := range d.cfg.Hosts {
		if c.Name == h.cfg.Name {
			return d.cfg.HostKey(i)
		}
	}
	return "host"
}

// healNow answers `watchdog heal [SERVER]`: every named server (or all)
// with an open incident climbs each such host's ladder as if the user
// clicked "heal".
func (d *daemon) healNow(ctx context.Context, server string) (map[string]string, error) {
	if server != "" && !d.hasServer(server) {
		return nil, fmt.Errorf("%w: %q", control.ErrUnknownServer, server)
	}
	taken := map[string]string{}
	for _, s := range d.cfg.Servers {
		if server != "" && s.Name != server {
			continue
		}
		var done []string
		for _, h := range d.watched {
			if _, _, open := h.model.Incident(s.Name); !open {
				continue
			}
			what := "gave up (see the heal_failed event)"
			if st := d.healServer(ctx, h, s.Name, true); st != "" {
				what = string(st)
			}
			if len(d.watched) > 1 {
				what = h.cfg.Name + ": " + what
			}
			done = append(done, what)
		}
		taken[s.Name] = "nothing to heal"
		if len(done) > 0 {
			taken[s.Name] = strings.Join(done, "; ")
		}
	}
	return taken, nil
}

// hostFor is the host a server's heal or restart is for: the first with
// an open incident there, else the main host.
func (w watchList) hostFor(server string) *hostWatch {
	for _, h := range w {
		if _, _, open := h.model.Incident(server); open {
			return h
		}
	}
	return w[0]
}

// retryRestarts restarts a host again, once its backoff allows, for
// incidents that auto_restart did not heal yet.
func (d *daemon) retryRestarts(ctx context.Context, now time.Time) {
	for _, h := range d.watched {
		if !h.cfg.AutoRestart || len(h.cfg.Restart) == 0 || !h.heal.limiter.Decide(now).OK {
			continue
		}
		if name, ok := firstLost(h, now); ok {
			d.restartHost(ctx, h, name)
		}
	}
}

// restartWait is how long until retryRestarts could restart a host for
// a lost session the limiter's backoff refused; ok is false when it waits
// for nothing (no auto restart, nothing lost, allowed now, or given up).
func (w watchList) restartWait(now time.Time) (wait time.Duration, ok bool) {
	for _, h := range w {
		if !h.cfg.AutoRestart || len(h.cfg.Restart) == 0 {
			continue
		}
		if _, lost := firstLost(h, now); !lost {
			continue
		}
		dec := h.heal.limiter.Decide(now)
		if !dec.OK && dec.Wait > 0 && (!ok || dec.Wait < wait) {
			wait, ok = dec.Wait, true
		}
	}
	return wait, ok
}

// firstLost names the first server where h's session is lost.
func firstLost(h *hostWatch, now time.Time) (string, bool) {
	for _, s := range h.model.Status(now).Servers {
		if s.State == health.Lost {
			return s.Name, true
		}
	}
	return "", false
}

// noteHealth feeds each host's restart limiter how long it has been fine:
// after an hour of health its backoff starts over.
// A failed save is logged to log.
func (w watchList) noteHealth(servers []config.Server, now time.Time, log *slog.Logger) {
	for _, h := range w {
		h.noteHealth(servers, now, log)
	}
}

func (h *hostWatch) noteHealth(servers []config.Server, now time.Time, log *slog.Logger) {
	for _, s := range servers {
		if _, _, open := h.model.Incident(s.Name); open {
			h.heal.limiter.Unhealthy()
			h.healthySince = time.Time{}
			return
		}
	}
	if h.healthySince.IsZero() {
		h.healthySince = now
	}
	h.heal.limiter.Healthy(h.healthySince)
	if err := h.heal.saveLimitsChanged(now); err != nil {
		log.Warn("cannot save the restart history; the next start keeps the longer backoff", "host", h.cfg.Name, "err", err)
	}
}

// restoreLimits gives the limiter the history of the last runs, at the
// start, before any heal can run. A history that cannot be read does not
// lift the limit: the limiter takes it as reached (see holdLimits) and the
// warning it returns says so.
func (h *healing) restoreLimits(now time.Time) []health.Event {
	boot, bootErr := h.bootClock()
	hist, err := restart.ReadHistory(h.limitsPath, now, boot, bootErr)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil // the first run here
	case err != nil:
		return []health.Event{h.holdLimits(err, now)}
	}
	h.limiter.Restore(hist, now)
	h.saved = h.limiter.History(now)
	return nil
}

// holdLimits makes the limiter act as if the burst had just been used up,
// keeps a copy of the unreadable file and saves the held state in its
// place, so a crash loop counts its window from the first bad start
// instead of starting it over at each. The copy is a hard link made
// before the file is replaced: the name is never missing, which would
// lift the limit at the next start. When no copy can be made the file is
// left as it is and held at every start.
func (h *healing) holdLimits(readErr error, now time.Time) health.Event {
	h.limiter.AssumeLimitReached(now)
	until := now.Add(h.limiter.Policy().Window)
	path := h.limitsPath
	kept, err := restart.KeepBadCopy(path)
	what := "it was kept as " + filepath.Base(kept)
	if err != nil {
		what = fmt.Sprintf("it was left in place, since no copy could be kept (%v)", err)
	} else if err := h.saveLimits(now); err != nil {
		what += fmt.Sprintf(", but the held limit could not be saved over it (%v)", err)
	}
	return health.Event{Time: now, Kind: health.EvWarning,
		Extra: map[string]any{"file": path, "error": readErr.Error(), "restarts_held_until": until.UTC().Format(time.RFC3339)},
		Detail: fmt.Sprintf("the host-restart history %s could not be read (%v); %s. Host restarts are held as if the "+
			"restart limit were reached, until %s, and go on by themselves then. To allow them sooner, stop the "+
			"watchdog, delete %s and start it again", path, readErr, what, until.Format("15:04:05"), path)}
}

// saveLimits writes the limiter's history. Each restart is saved before
// it begins, so no stop of the watchdog, not even a kill -9, forgets it.
func (h *healing) saveLimits(now time.Time) error {
	hist := h.limiter.History(now)
	boot, bootErr := h.bootClock()
	if err := restart.WriteHistory(h.limitsPath, hist, now, boot, bootErr); err != nil {
		return err
	}
	h.saved = hist
	return nil
}

// saveLimitsChanged saves the history when its backoff changed since the
// last save: an hour of health started it over, which the next run should
// know. Restarts leaving the window need no save: a start drops them.
func (h *healing) saveLimitsChanged(now time.Time) error {
	if h.limiter.History(now).Backoff == h.saved.Backoff {
		return nil
	}
	return h.saveLimits(now)
}
