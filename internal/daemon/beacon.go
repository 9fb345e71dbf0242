package daemon

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/mcpwatchdog/watchdog/healer/clientpatch"
	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/monitor/beacon"
	"github.com/mcpwatchdog/watchdog/monitor/dirwatch"
	"github.com/mcpwatchdog/watchdog/monitor/proc"
)

// clientWatch is what the daemon knows of the main host's patched client:
// its module as last looked at, and the beacons it writes.
type clientWatch struct {
	look clientpatch.Look // the latest look at the client module
	seen bool             // look has been made
	// known hands the process watcher a live beacon's writer.
	known chan proc.Host
	// beacons as last read: applied again when the host changes.
	beacons *beacon.Update
}

// beaconDir is where the host's patched client writes its beacons ("" when
// the home directory is unknown, or the host's client takes no patch).
func (d *daemon) beaconDir() string {
	prof := d.mainHost().prof
	if !prof.Patchable() {
		return "" // no patched client: no beacons, and no folder to watch
	}
	home := d.home()
	if home == "" {
		return ""
	}
	return filepath.Join(home, prof.Client.BeaconDir)
}

// beaconSource is the patched client's beacons: each change is an item
// for the loop (applyBeacons).
type beaconSource struct {
	dir string
	log *slog.Logger
	hub *dirwatch.Hub
}

func (s *beaconSource) Name() string { return "beacons" }

func (s *beaconSource) Run(ctx context.Context, emit emitFunc) error {
	updates := make(chan beacon.Update, 4)
	errc := make(chan error, 1)
	go func() {
		defer close(updates)
		errc <- beacon.Watch(ctx, beacon.Options{Dir: s.dir, Logger: s.log, Hub: s.hub}, updates)
	}()
	for u := range updates {
		if !emit(beaconsIn{u}) {
			break
		}
	}
	for range updates { // the watcher ends with ctx; nothing it sends is lost to a blocked send
	}
	if err := <-errc; err != nil {
		return fmt.Errorf("not reading the client's beacons in %s: %w", s.dir, err)
	}
	return nil
}

// applyBeacons takes the host's word from the live beacon of the host
// process (or, when the process watcher has not found the host, the
// freshest live beacon) and points the process watcher at its writer.
func (d *daemon) applyBeacons(ctx context.Context, u beacon.Update) {
	d.client.beacons = &u
	c, ok := d.hostBeacon(u.Clients)
	if !ok {
		d.apply(ctx, health.BeaconSeen{})
		return
	}
	d.apply(ctx, health.BeaconSeen{PID: c.PID, Held: d.heldOf(c)})
	offerKnown(d.client.known, proc.Host{PID: c.PID, Started: c.Started})
}

// offerKnown hands the process watcher the newest beacon writer without
// waiting: one it has not taken yet is replaced, not kept. Keeping the
// older one (a killed host's) had the watcher check a dead pid and find the
// new host only at its next scan, seconds on a busy machine, while the
// model guessed at the host's sessions (soak run 30). Only the loop sends.
func offerKnown(ch chan proc.Host, h proc.Host) {
	select {
	case <-ch:
	default:
	}
	select {
	case ch <- h:
	default: // cannot happen with one sender; never block the loop
	}
}

// hostChanged gives the model the last beacons again when the process
// watcher reports a host: a restarted host's beacon, read before the
// watcher saw the restart, spoke for no one (it was not the known host's)
// and would stay silent until the client next rewrote it (soak: a
// restarted host's session pinged as "inferred" for two seconds).
func (d *daemon) hostChanged(ctx context.Context, o health.Observation) {
	if _, up := o.(health.HostUp); up && d.client.beacons != nil {
		d.applyBeacons(ctx, *d.client.beacons)
	}
}

// firstBeacons gives the model the live beacons before the loop starts
// (and before any source does): the loop's first keep-warm pass or
// judgement of a restored session must take the host's word, not a guess
// of the moment (soak: keep_warm records "inferred" in a start's first
// second, the beacon watcher's first update still queued).
func (d *daemon) firstBeacons(ctx context.Context) {
	dir := d.beaconDir()
	if dir == "" {
		return
	}
	clients, err := beacon.Read(ctx, beacon.Options{Dir: dir, Logger: d.log})
	if err != nil || len(clients) == 0 {
		return // the watcher reports what it finds
	}
	d.applyBeacons(ctx, beacon.Update{Clients: clients})
}

// hostBeacon is the beacon of the running host process; while the process
// watcher has found none, the freshest. Once it has, another process's
// beacon (a killed host's, not yet swept) never speaks for the host.
func (d *daemon) hostBeacon(clients []beacon.Client) (beacon.Client, bool) {
	pid, _, running := d.mainHost().model.HostProcess()
	return pickHostBeacon(clients, pid, running)
}

// pickHostBeacon is hostBeacon for a host process known (running) as pid.
func pickHostBeacon(clients []beacon.Client, pid int32, running bool) (beacon.Client, bool) {
	var best beacon.Client
	found := false
	for _, c := range clients {
		if running && c.PID == pid {
			return c, true
		}
		if !found || c.Updated.After(best.Updated) {
			best, found = c, true
		}
	}
	return best, found && !(running && pid != 0)
}

// heldOf maps the client's servers onto the configured ones: by URL, the
// one thing both name alike, else by name. A proxied entry is left out: a
// host reaching the server directly is the direct entry's (which may share
// the URL), and one calling through the proxy holds the proxy's id, which
// the server never issued; the proxy itself reports those sessions.
func (d *daemon) heldOf(c beacon.Client) map[string]health.Held {
	held := map[string]health.Held{}
	for _, s := range d.cfg.Servers {
		if s.ProxyListen != "" {
			continue
		}
		for _, b := range c.Servers {
			if sameURL(b.URL, s.URL) || (b.URL == "" && b.Name == s.Name) {
				held[s.Name] = health.Held{Session: b.SessionID, Connected: b.State == beacon.Connected,
					Since: b.ConnectedSince, LastRequest: b.LastRequest}
				break
			}
		}
	}
	return held
}

// sameURL compares two endpoint URLs as a client would reach them.
func sameURL(a, b string) bool {
	ua, errA := url.Parse(a)
	ub, errB := url.Parse(b)
	if errA != nil || errB != nil {
		return false
	}
	return strings.EqualFold(ua.Scheme, ub.Scheme) && strings.EqualFold(ua.Host, ub.Host) &&
		strings.TrimSuffix(ua.Path, "/") == strings.TrimSuffix(ub.Path, "/")
}
