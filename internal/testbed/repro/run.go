package repro

import (
	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/testbed/repo"

	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/mcpwatchdog/watchdog/healer"
	"github.com/mcpwatchdog/watchdog/internal/mask"
)

// Result is what one Run saw.
type Result struct {
	Server  ServerKind
	Client  ClientKind
	Patched bool
	NoRetry bool // patched with v1: no retry part
	Trigger bool
	Loss    LossMode
	// ServerName is the client's name for the server; URL its MCP endpoint.
	ServerName string
	URL        string

	Verdict Verdict
	// FirstCallFailed: the first call after the loss failed. Expected
	// without the trigger (patched or not); never with it.
	FirstCallFailed bool
	// FirstCallStatus is the HTTP status that failure carried (404 from
	// a stateful server that lost the session); 0 when none.
	FirstCallStatus int
	// FirstCallError is that failure's message.
	FirstCallError string
	// BeforeCallTook is how long the call before the loss took, and
	// FirstCallTook the first call after it (with the retry part, that
	// call's retry on the new session included).
	BeforeCallTook, FirstCallTook time.Duration
	// FailedCalls counts every failed call after the loss: the first one
	// and the probes made every 100 ms until one succeeded or
	// RecoverWithin passed.
	FailedCalls int
	// RecoveredAfter is the time from the loss (when the server ended
	// the session) to the first successful call; zero when STUCK.
	RecoveredAfter time.Duration
	// TriggerConfirmed: with the trigger, the beacon showed a new
	// connected session before the first call.
	TriggerConfirmed bool

	// LostSession and NewSession are full session ids (credentials):
	// mask them before they leave the process.
	LostSession string
	NewSession  string

	// Beacon is the patched client's beacon once it showed the new
	// session (or its last state); nil for the unpatched client.
	Beacon *Beacon
	// BeaconRemoved: no beacon of the host was left after it quit (or,
	// with KillHost, after the watchdog removed it).
	BeaconRemoved bool
	// WatchdogStatus is the watchdog's status document once the host called
	// successfully again (ids masked); nil without Watchdog.
	WatchdogStatus *health.Status
	// BeaconGoneAfter, with KillHost and Watchdog, is how long after the
	// kill the watchdog took to remove the beacon the client left behind.
	BeaconGoneAfter time.Duration
}

// Run reproduces one session loss; see the package documentation. An
// error means the reproduction itself could not run (missing deps, a
// server or host that failed); STUCK is a result, not an error.
func Run(ctx context.Context, o Options) (Result, error) {
	o, err := o.withDefaults()
	if err != nil {
		return Result{}, err
	}
	if o.Root == "" {
		if o.Root, err = repo.Root(); err != nil {
			return Result{}, err
		}
	}
	p := newPaths(o.Root)
	node, err := p.check(o)
	if err != nil {
		return Result{}, err
	}
	tmp, err := os.MkdirTemp("", "watchdog-repro-*")
	if err != nil {
		return Result{}, fmt.Errorf("repro: %w", err)
	}
	defer os.RemoveAll(tmp)
	home := o.Home
	if home == "" {
		home = filepath.Join(tmp, "home")
		if err := os.Mkdir(home, 0o700); err != nil {
			return Result{}, fmt.Errorf("repro: %w", err)
		}
	}
	return runIn(ctx, o, p, node, tmp, home)
}

func runIn(ctx context.Context, o Options, p paths, node, tmp, home string) (Result, error) {
	idle := o.IdleTimeout
	if o.Loss == LossForget {
		idle = 0
	}
	srv, err := startServer(ctx, o, p, node, tmp, idle)
	if err != nil {
		return Result{}, err
	}
	defer srv.Close()
	module, err := prepareModule(o, p, node, filepath.Join(tmp, "client"), home)
	if err != nil {
		return Result{}, err
	}
	hostURL := srv.URL()
	if o.Proxy {
		stop, url, err := startProxy(ctx, srv.URL(), o)
		if err != nil {
			return Result{}, err
		}
		defer stop()
		hostURL = url
	}
	h, err := startHost(node, p, module, o, []hostServer{{o.ServerName, hostURL}}, home)
	if err != nil {
		return Result{}, err
	}
	defer h.stop()
	var w *watchdogDaemon
	if o.Watchdog != nil {
		if w, err = startWatchdog(ctx, o, tmp, home, module, srv.URL()); err != nil {
			return Result{}, err
		}
		defer w.stop()
	}
	r := Result{Server: o.Server, Client: o.Client, Patched: o.Patched, NoRetry: o.NoRetry, Trigger: o.Trigger, Loss: o.Loss,
		ServerName: o.ServerName, URL: srv.URL()}
	if err := r.drive(ctx, o, srv, h, home); err != nil {
		return r, err
	}
	if w != nil {
		if err := r.watchdogView(ctx, w, h, home); err != nil {
			return r, err
		}
	}
	return r, r.end(o, h, home)
}

// end quits the host, or with KillHost kills it and waits for the
// watchdog to remove the beacon it left.
func (r *Result) end(o Options, h *host, home string) error {
	path := BeaconPath(home, h.proc.pid)
	if !o.KillHost {
		if err := h.quit(); err != nil {
			return err
		}
		_, err := os.Stat(path)
		r.BeaconRemoved = errors.Is(err, fs.ErrNotExist)
		return nil
	}
	h.stop()
	killed := time.Now()
	for time.Since(killed) < beaconGoneWithin {
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			r.BeaconRemoved, r.BeaconGoneAfter = true, time.Since(killed)
			return nil
		}
		time.Sleep(10 * time.Millisecond)
	}
	return nil
}

// beaconGoneWithin bounds the wait for a killed client's beacon to go.
const beaconGoneWithin = 10 * time.Second

// drive: a call on the live session, the loss, then calls until one
// succeeds or RecoverWithin passes.
func (r *Result) drive(ctx context.Context, o Options, srv server, h *host, home string) error {
	// Two calls on the live session; the second (warm) one is the baseline.
	for i := range 2 {
		start := time.Now()
		before, err := h.call(o.tool(), `{"text":"before the loss"}`)
		if err != nil {
			return err
		}
		r.BeforeCallTook = time.Since(start)
		if !before.OK {
			return fmt.Errorf("%w: call %d before the loss failed: %s", ErrHost, i+1, before.Text)
		}
	}
	var err error
	if r.LostSession, err = onlySession(ctx, srv, ""); err != nil {
		return err
	}
	lossAt, err := lose(ctx, o, srv, r.LostSession)
	if err != nil {
		return err
	}
	o.Logger.Info("session lost", "server", o.Server, "session", mask.ID(r.LostSession), "loss", o.Loss)
	if o.Trigger || o.Watchdog != nil {
		if o.Watchdog == nil {
			if err := healer.WriteTrigger(filepath.Join(home, dsh().Client.TriggerDir), o.ServerName, time.Now()); err != nil {
				return err
			}
		}
		bc, err := waitBeacon(ctx, home, h.proc.pid, o.ServerName, r.LostSession, o.ConfirmWithin)
		r.TriggerConfirmed = err == nil
		r.Beacon = bc
	}
	if err := r.callUntilRecovered(o, h, lossAt); err != nil {
		return err
	}
	if r.Verdict == Recovered {
		r.NewSession, _ = onlySession(ctx, srv, r.LostSession) // "" when not exactly one
	}
	if o.Patched && !r.TriggerConfirmed {
		r.Beacon, _ = waitBeacon(ctx, home, h.proc.pid, o.ServerName, r.LostSession, o.ConfirmWithin)
	}
	return nil
}

// lose makes the server lose session id and returns when it did.
func lose(ctx context.Context, o Options, srv server, id string) (time.Time, error) {
	ctx, cancel := context.WithTimeout(ctx, o.IdleTimeout+startWithin)
	defer cancel()
	if o.Loss == LossForget {
		if err := srv.Forget(ctx); err != nil {
			return time.Time{}, err
		}
	}
	at, err := waitEnded(ctx, srv, id)
	if err != nil {
		return time.Time{}, fmt.Errorf("%w\nserver stderr:\n%s", err, srv.Diagnostics())
	}
	return at, nil
}

// callUntilRecovered makes the first call after the loss, then (when it
// failed) one every probeEvery until a call succeeds or RecoverWithin passes.
func (r *Result) callUntilRecovered(o Options, h *host, lossAt time.Time) error {
	var deadline time.Time
	for i := 0; ; i++ {
		start := time.Now()
		res, err := h.call(o.tool(), fmt.Sprintf(`{"text":"after the loss %d"}`, i))
		if err != nil {
			return err
		}
		if i == 0 {
			r.FirstCallTook = time.Since(start)
		}
		if res.OK {
			r.Verdict, r.RecoveredAfter = Recovered, time.Since(lossAt)
			return nil
		}
		r.FailedCalls++
		if i == 0 {
			r.FirstCallFailed, r.FirstCallStatus, r.FirstCallError = true, res.Status, res.Text
			deadline = time.Now().Add(o.RecoverWithin)
		}
		if time.Now().Add(probeEvery).After(deadline) {
			r.Verdict = Stuck
			return nil
		}
		time.Sleep(probeEvery)
	}
}

// waitBeacon polls the beacon of client process pid until it shows server
// connected on a session other than lost, for at most within. It returns
// the last beacon read (nil when none could be read) and an error when
// the new session did not show.
func waitBeacon(ctx context.Context, home string, pid int, server, lost string, within time.Duration) (*Beacon, error) {
	ctx, cancel := context.WithTimeout(ctx, within)
	defer cancel()
	t := time.NewTicker(10 * time.Millisecond)
	defer t.Stop()
	var last *Beacon
	for {
		if bc, err := ReadBeacon(home, pid); err == nil {
			last = &bc
			if s, ok := bc.Server(server); ok && s.State == "connected" && s.SessionID != "" && s.SessionID != lost {
				return last, nil
			}
		}
		select {
		case <-ctx.Done():
			return last, fmt.Errorf("repro: the beacon showed no new session within %v: %w", within, ctx.Err())
		case <-t.C:
		}
	}
}

// watchdogView reads the watchdog's status once it names the session the
// client's beacon shows (the beacon is sampled every half second, so the
// watchdog may lag the client by that much), or after a few seconds; the
// beacon read at that moment goes into Result.Beacon.
func (r *Result) watchdogView(ctx context.Context, w *watchdogDaemon, h *host, home string) error {
	deadline := time.Now().Add(5 * time.Second)
	for {
		st, err := w.status(ctx)
		if err != nil {
			return err
		}
		bc, berr := ReadBeacon(home, h.proc.pid)
		r.WatchdogStatus = &st
		if berr == nil {
			r.Beacon = &bc
		}
		if berr == nil && showsHeld(st, bc, r.ServerName) || time.Now().After(deadline) {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// showsHeld: the status marks as current the session the beacon holds.
func showsHeld(st health.Status, bc Beacon, server string) bool {
	held, ok := bc.Server(server)
	if !ok || held.SessionID == "" {
		return false
	}
	for _, s := range st.Servers {
		for _, sess := range s.Sessions {
			if sess.Current && sess.ID == mask.ID(held.SessionID) {
				return true
			}
		}
	}
	return false
}
