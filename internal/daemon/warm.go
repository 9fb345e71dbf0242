package daemon

import (
	"context"
	"os"
	"time"

	"github.com/mcpwatchdog/watchdog/healer"
	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/mcphttp"
	"github.com/mcpwatchdog/watchdog/monitor/beacon"
	"github.com/mcpwatchdog/watchdog/monitor/proc"
)

// pings is what the daemon pings with and when: keep-warm pings of the
// hosts' sessions, the checks of new ones, and sessionless liveness checks.
type pings struct {
	pinger *healer.Pinger
	// live: when each server's sessionless check is due; nil before Serve.
	live   *healer.Liveness
	warmOn map[string]bool // servers whose hosts' sessions are kept warm
	// asked: servers that answered a liveness check about a made-up
	// session (how they say a session is gone): asked once per run.
	asked    map[string]bool
	verified map[string]time.Time // server+session → last verifying ping
}

// newPinger builds one MCP client per server. A server whose client cannot
// be built (a header's variable is unset, plain http to a remote host) is
// reported and left unpinged rather than pinged wrongly.
func (d *daemon) newPinger(ctx context.Context) (*healer.Pinger, []health.Event) {
	clients := map[string]*mcphttp.Client{}
	var warnings []health.Event
	for _, s := range d.cfg.Servers {
		headers, err := s.ExpandedHeaders(os.Getenv)
		if err == nil {
			var c *mcphttp.Client
			c, err = mcphttp.New(mcphttp.Options{URL: s.URL, Headers: headers, AllowInsecure: s.AllowInsecure, ClientVersion: d.opts.Version})
			clients[s.Name] = c
		}
		if err != nil {
			delete(clients, s.Name)
			warnings = append(warnings, health.Event{Time: d.now(), Kind: health.EvWarning, Server: s.Name,
				Detail: "not pinging " + s.Name + ": " + err.Error()})
		}
	}
	report := d.reports.reporter(ctx)
	return healer.NewPinger(clients, func(o health.Observation) { report(signalIn{o: o}) }), warnings
}

// warmThroughStart keeps the sessions a live patched client's beacon names
// on a keep-warm server warm while the start does its slow work, until the
// returned handover is called (before the loop starts; from then on d.warm
// is the loop's alone). Reading the journal back takes seconds on a long
// one under load: one ping at the start (soak run 12) bought a session one
// idle period, and a 4 MiB read on a busy machine outlasted a 3 s server's
// (issue 31). So they are pinged at once and again every half idle timeout,
// the loop's own pace. Each round reads the beacons again, so a host that
// died meanwhile is not kept alive. The answers reach the model, as every
// ping's do, once the loop runs; the loop's own schedule counts the pings.
func (d *daemon) warmThroughStart(ctx context.Context) (handover func()) {
	// The model is the start's meanwhile: what it knows of the host is
	// read once, here.
	pid, _, running := d.mainHost().model.HostProcess()
	host := func(clients []beacon.Client) (beacon.Client, bool) { return pickHostBeacon(clients, pid, running) }
	every := d.pingHeld(ctx, host)
	if every <= 0 {
		return func() {}
	}
	// The handover stops the rounds, not a ping under way: one cancelled
	// there reported the session's ping failed and the server down, at
	// the moment the loop took over (a false alarm the loop then shows).
	stop, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTimer(every)
		defer t.Stop()
		for {
			select {
			case <-stop.Done():
				return
			case <-t.C:
			}
			if every = d.pingHeld(ctx, host); every <= 0 {
				return
			}
			t.Reset(every)
		}
	}()
	return func() { cancel(); <-done }
}

// pingHeld pings the held sessions that are due and says when to look
// again: half the shortest idle timeout among them, 0 when none is held.
func (d *daemon) pingHeld(ctx context.Context, host func([]beacon.Client) (beacon.Client, bool)) time.Duration {
	dir := d.beaconDir()
	if dir == "" {
		return 0
	}
	clients, err := beacon.Read(ctx, beacon.Options{Dir: dir, Logger: d.log})
	c, ok := host(clients)
	if err != nil || !ok {
		return 0
	}
	held, now, warm := d.heldOf(c), d.now(), d.mainHost().warm
	var every time.Duration
	for _, s := range d.cfg.Servers {
		h := held[s.Name]
		if !d.pings.warmOn[s.Name] || !h.Connected || h.Session == "" || s.IdleTimeout.Duration <= 0 {
			continue
		}
		if half := s.IdleTimeout.Duration / 2; every == 0 || half < every {
			every = half
		}
		t := health.WarmTarget{Server: s.Name, SessionID: h.Session, Timeout: s.IdleTimeout.Duration, NamedBy: health.SourceBeacon}
		if len(warm.Due([]health.WarmTarget{t}, now, true)) > 0 && !d.pings.pinger.KeepWarm(ctx, t) {
			warm.Unsent(s.Name)
		}
	}
	return every
}

// dueActions are the requests the models' state makes due after a pass: the
// liveness checks on a timed pass (time is what makes them due), and the
// keep-warm pings (after a wake, force: at once). It says how long until
// the next is due.
func (d *daemon) dueActions(ctx context.Context, now time.Time, timed, force bool) time.Duration {
	if timed {
		d.pings.checkLiveness(ctx, d.watched, now)
	}
	return min(d.keepWarm(ctx, now, force), d.pings.livenessIn(now))
}

// keepWarm pings each host's sessions that are due and says when to look
// again. Servers with keep_warm = false are left to expire. A host found
// gone before its pings is the model's news (host_down), not pinged.
func (d *daemon) keepWarm(ctx context.Context, now time.Time, force bool) time.Duration {
	next := time.Duration(-1)
	for _, h := range d.watched {
		n, gone := d.pings.keepHostWarm(ctx, h, now, force)
		if gone {
			d.applyFrom(ctx, h, health.HostDown{})
		}
		if next < 0 || n < next {
			next = n
		}
	}
	return max(next, minWake)
}

// keepHostWarm is keepWarm for one host; gone: its process was found gone
// instead, and nothing was pinged.
func (p *pings) keepHostWarm(ctx context.Context, h *hostWatch, now time.Time, force bool) (next time.Duration, gone bool) {
	var targets []health.WarmTarget
	for _, t := range h.model.WarmTargets(now) {
		if p.warmOn[t.Server] {
			targets = append(targets, t)
		}
	}
	due := h.warm.Due(targets, now, force)
	checks, verifying := p.verifyDue(h, now)
	if len(due)+len(checks) > 0 && hostGone(ctx, h) {
		return hostCheckPause, true
	}
	for _, t := range due {
		if !p.pinger.KeepWarm(ctx, t) {
			// Another request of ours (a liveness check) is in flight: this
			// ping did not go, so it must not count as sent.
			h.warm.Unsent(t.Server)
		}
	}
	for _, t := range checks {
		if p.pinger.KeepWarm(ctx, t) {
			p.verified[t.Server+"\x00"+t.SessionID] = now
		}
	}
	next = h.warm.Next(targets, now)
	if next < 0 {
		next = wakeFloor
	}
	if verifying {
		next = min(next, verifyEvery) // a new session is being checked
	}
	return next, false
}

// checkLiveness sends the sessionless checks that are due (healer.Liveness
// paces them: every 30 s while a server answers, backing off to 10 min
// while it does not).
// The main host's model (watched[0]) knows each server's era.
func (p *pings) checkLiveness(ctx context.Context, watched []*hostWatch, now time.Time) {
	if p.live == nil {
		return
	}
	for _, s := range p.live.Due(now) {
		ask := !p.asked[s]
		if !p.pinger.Liveness(ctx, s, ask, watched[0].model.Era(s)) {
			p.live.Unsent(s, now)
			continue
		}
		for _, h := range watched {
			if ask {
				h.model.Asking(s, now) // its log's echo of the made-up session is no loss
			}
		}
	}
}

// livenessIn is how long the loop may wait before the next check is due.
func (p *pings) livenessIn(now time.Time) time.Duration {
	if p.live == nil {
		return healer.LivenessMaxGap
	}
	if next, ok := p.live.Next(now); ok {
		return next
	}
	return healer.LivenessMaxGap // no server to check: wake only to look again
}

// noteLife tells the liveness schedule what an observation says of a server:
// a liveness answer is its outcome; an answer from the server, or a line
// or store change it wrote, is a sign of life that ends a down server's
// backoff at once.
func (p *pings) noteLife(o health.Observation, now time.Time) {
	server := health.ServerOf(o)
	if p.live == nil || server == "" {
		return
	}
	switch sig := o.(type) {
	case health.LivenessAnswered:
		p.live.Answered(server, sig.Outcome != health.OutcomeDown, now)
		if sig.Outcome != health.OutcomeDown {
			p.asked[server] = true
		}
	case health.KeepWarmAnswered:
		if sig.Outcome != health.OutcomeDown {
			p.live.Alive(server, now)
		}
	case health.SessionLost, health.IdleTimeoutAnnounced, health.LegacyHeaderRejected, health.Reconnected,
		health.StoreSnapshot, health.SessionClosed:
		p.live.Alive(server, now)
	}
}

// hostGone re-checks h's process before its sessions are pinged: the
// watcher looks only every few seconds, and a ping in that gap would keep
// a dead host's session alive. A failed look is not "gone".
func hostGone(ctx context.Context, h *hostWatch) bool {
	pid, started, running := h.model.HostProcess()
	if !running || pid == 0 {
		return false
	}
	ok, err := proc.Alive(ctx, proc.Host{PID: pid, Started: started})
	return err == nil && !ok
}

// verifyEvery paces the pings that check a new session the client holds
// answers, before it counts as the recovery of an open incident.
const verifyEvery = 2 * time.Second

// verifyDue is the new sessions the model needs an answer from whose
// check is due.
func (p *pings) verifyDue(h *hostWatch, now time.Time) (due []health.WarmTarget, pending bool) {
	if len(p.verified) > 64 {
		clear(p.verified) // old candidates: at worst one extra ping each
	}
	candidates := h.model.Verify(now)
	for _, t := range candidates {
		if last, ok := p.verified[t.Server+"\x00"+t.SessionID]; !ok || now.Sub(last) >= verifyEvery {
			due = append(due, t)
		}
	}
	return due, len(candidates) > 0
}
