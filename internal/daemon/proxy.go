package daemon

import (
	"context"
	"strings"
	"sync"

	"github.com/mcpwatchdog/watchdog/healer/adopt"
	"github.com/mcpwatchdog/watchdog/healer/proxy"
	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/host"
	"github.com/mcpwatchdog/watchdog/internal/proxyproc"
	"github.com/mcpwatchdog/watchdog/internal/supervise"
)

// proxied says whether the config serves a proxy for server.
func (d *daemon) proxied(server string) bool {
	s, _ := d.server(server)
	return s.ProxyListen != ""
}

// daemonReports hands what the daemon's own proxies see to its loop.
type daemonReports struct{ d *daemon }

func (r daemonReports) Sighting(ctx context.Context, ev proxy.Sighting) { r.d.proxySaw(ctx, ev) }

func (r daemonReports) Warning(ctx context.Context, server, detail string) {
	r.d.signal(ctx, health.Warning{Server: server, Detail: detail})
}

// startProxies serves the daemon's proxies: itself, or by following the
// proxy process that serves them (Options.ProxyProcess).
func (d *daemon) startProxies(ctx context.Context, wg *sync.WaitGroup) {
	if d.opts.ProxyProcess != "" {
		listens := d.cfg.ProxyListens()
		d.listen.socks.KeepOnly(listens)
		f := &proxyproc.Follower{StateDir: d.stateDir, Mode: d.opts.ProxyProcess, Command: d.opts.StartProxy, ConfigPath: d.cfg.Path,
			Proxies: d.proxies, Out: daemonReports{d}, Log: d.log, Sockets: d.listen.socks, Listens: listens}
		supervise.Start(ctx, wg, d.log, f, func(struct{}) bool { return ctx.Err() == nil })
		return
	}
	ps := &proxyproc.Serving{Config: d.cfg, StateDir: d.stateDir, Log: d.log, Sockets: d.listen.socks, Proxies: d.proxies,
		Out: daemonReports{d}}
	ps.StartAll(ctx, wg)
}

// proxySaw turns what a proxy saw into signals: the losses it met and
// whether it healed them. It runs on the proxy's request goroutines and
// only queues.
func (d *daemon) proxySaw(ctx context.Context, ev proxy.Sighting) {
	switch ev.Kind {
	case proxy.EvSession, proxy.EvUpstream:
		d.proxyOpened(ctx, ev.Server, ev.Upstream)
	case proxy.EvReleased:
		d.toDirectEntries(ctx, ev.Server, ev.OldUpstream, true)
	case proxy.EvRecovered, proxy.EvRecoverFailed:
		d.signal(ctx, health.ProxyHealed{Server: ev.Server, Session: ev.OldUpstream, NewSession: ev.Upstream,
			Healed: ev.Kind == proxy.EvRecovered, Took: ev.Took, Detail: ev.Detail, Client: ev.Client})
	case proxy.EvRefused:
		d.peerRefused(ev.Server, "the proxy for "+ev.Server, ev.UID)
	case proxy.EvLegacyHeaderDropped:
		d.metrics.LegacyHeaderDropped(ev.Server)
	case proxy.EvOAuth:
		d.oauthSeen(ctx, ev)
	case proxy.EvBridging:
		d.signal(ctx, health.ProxyBridging{Server: ev.Server, Detail: ev.Detail})
	case proxy.EvAttached:
		d.proxyAttached(ctx, ev, health.EvHostAttached)
	case proxy.EvAwaiting:
		d.proxyAttached(ctx, ev, health.EvHostWaiting)
	case proxy.EvAttachedUp:
		d.proxyOpened(ctx, ev.Server, ev.Upstream)
		d.proxyAttached(ctx, ev, health.EvHostCaughtUp)
	case proxy.EvNotUp:
		d.proxyAttached(ctx, ev, health.EvCallNotUp)
	}
}

// proxyAttached journals how the proxy stood in for a server that was
// down when a host started (kind), the host named where its client is a
// watched host's: "Claude Code started while mem was down; ...".
func (d *daemon) proxyAttached(ctx context.Context, ev proxy.Sighting, kind health.EventKind) {
	name := ""
	for _, h := range d.watched {
		if h.cfg.ClientName != "" && ev.Client != "" && host.ClientMatch(h.cfg.ClientName, ev.Client) {
			name = h.cfg.Name
			break
		}
	}
	detail := ev.Detail
	if name != "" {
		detail = strings.Replace(detail, "a host", name, 1) // the proxy's sentences name "a host"
	}
	d.signal(ctx, health.ProxyAttached{Server: ev.Server, Kind: kind, Host: name, Client: ev.Client, Known: ev.Known,
		Took: ev.Took, Detail: detail})
}

// oauthSeen: a proxied server signs in with OAuth, which no proxy can
// carry. The journal says so once, with the command that puts each host
// that goes through it back at the server's own URL.
func (d *daemon) oauthSeen(ctx context.Context, ev proxy.Sighting) {
	s, ok := d.server(ev.Server)
	if !ok {
		return
	}
	d.proxies.SawOAuth(s.URL)
	fix := "release it from the proxy with `watchdog hosts release HOST --server NAME`"
	if users, err := adopt.Through(d.stateDir, ev.Server); err == nil && len(users) > 0 {
		var cmds []string
		for _, u := range users {
			cmds = append(cmds, "watchdog hosts release "+host.ShellWord(u.Host)+" --server "+host.ShellWord(u.Name))
		}
		fix = "release it from the proxy: " + strings.Join(cmds, "; ")
	}
	d.signal(ctx, health.Warning{Server: ev.Server, Detail: ev.Detail + ": " + fix})
}

// proxyOpened tells every direct entry of the proxied server's URL that
// upstream is the proxy's session: it carries its host's client name, and
// such an entry would take it for its own host's.
func (d *daemon) proxyOpened(ctx context.Context, proxied, upstream string) {
	d.toDirectEntries(ctx, proxied, upstream, false)
}

// toDirectEntries tells every direct entry of the proxied entry's URL that
// upstream, a session of the proxied entry, is the proxy's (ProxyUpstream),
// or, released, that the proxy ends it itself (ProxyReleased).
func (d *daemon) toDirectEntries(ctx context.Context, proxied, upstream string, released bool) {
	p, ok := d.server(proxied)
	if upstream == "" || !ok {
		return
	}
	for _, s := range d.cfg.Servers {
		if s.ProxyListen == "" && sameURL(s.URL, p.URL) {
			var o health.Observation = health.ProxyUpstream{Server: s.Name, Session: upstream}
			if released {
				o = health.ProxyReleased{Server: s.Name, Session: upstream}
			}
			d.send(ctx, signalIn{o: o})
		}
	}
}

// tuneProxies gives a proxy the idle timeout its server announced or was
// seen to keep, when it differs from the config's: keep-warm and the
// release of gone hosts follow the server's own word.
func (d *daemon) tuneProxies(evs []health.Event) {
	for _, ev := range evs {
		if ev.Kind != health.EvServerMode && ev.Kind != health.EvTimeoutLearned {
			continue
		}
		d.proxies.SetIdleTimeout(ev.Server, d.mainHost().model.Timeout(ev.Server))
	}
}
