package daemon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/mcpwatchdog/watchdog/healer/adopt"
	"github.com/mcpwatchdog/watchdog/healer/proxy"
	"github.com/mcpwatchdog/watchdog/internal/config"
	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/host"
)

// proxied says whether the config serves a proxy for server.
func (d *daemon) proxied(server string) bool {
	s, _ := d.server(server)
	return s.ProxyListen != ""
}

// proxySecret is the secret of the proxies' URLs, made on first need and
// kept in the state directory; "" when no server is proxied. A damaged
// secret file stops the start: hosts hold URLs with the old secret, and a
// silent new one would strand them all.
func proxySecret(cfg config.Config, stateDir string) (string, error) {
	for _, s := range cfg.Servers {
		if s.ProxyListen != "" {
			return proxy.LoadSecret(stateDir)
		}
	}
	return "", nil
}

// proxyURL is the URL to give s's hosts, "" when s is not proxied. It
// carries the secret: only the status, which the user asks for, says it.
func proxyURL(s config.Server, secret string) string {
	if s.ProxyListen == "" {
		return ""
	}
	return proxy.URLFor(s.ProxyListen, secret)
}

// proxyStateName is a proxied server's sessions in the state directory.
func proxyStateName(server string) string { return "proxy-" + server + ".json" }

// proxyReporter is where what the proxies see goes: the daemon's loop
// when the daemon serves them itself, the daemons following the proxy
// process when that serves them (proxyhub). Neither may block a call.
type proxyReporter interface {
	sighting(ctx context.Context, ev proxy.Sighting)
	warning(ctx context.Context, server, detail string)
}

// daemonReports hands what the daemon's own proxies see to its loop.
type daemonReports struct{ d *daemon }

func (r daemonReports) sighting(ctx context.Context, ev proxy.Sighting) { r.d.proxySaw(ctx, ev) }

func (r daemonReports) warning(ctx context.Context, server, detail string) {
	r.d.signal(ctx, health.Warning{Server: server, Detail: detail})
}

// proxyServing serves the proxies of one config on the sockets of a
// process (the daemon's, or the proxy process's) and reports what they
// see to out; start runs each proxy (and each wait for a port) under a
// supervisor.
type proxyServing struct {
	cfg      config.Config
	stateDir string
	log      *slog.Logger
	socks    *sockets
	proxies  *proxySet
	out      proxyReporter
	start    func(context.Context, *sync.WaitGroup, source)
}

// startProxies serves the daemon's proxies: itself, or by following the
// proxy process that serves them (Options.ProxyProcess).
func (d *daemon) startProxies(ctx context.Context, wg *sync.WaitGroup) {
	if d.opts.ProxyProcess != "" {
		d.followProxyProcess(ctx, wg)
		return
	}
	ps := &proxyServing{cfg: d.cfg, stateDir: d.stateDir, log: d.log, socks: d.listen.socks, proxies: d.proxies,
		out: daemonReports{d}, start: d.startSource}
	ps.startAll(ctx, wg)
}

// startAll serves the session-keeping proxy of every server that
// names a proxy_listen, each on the socket a supervisor passed for its
// address or else on one of the process's own. A port another program
// holds is tried again until it is free (awaitPort); any other failure is
// a warning in the journal: hosts pointed at that proxy find nothing
// there, which the warning explains.
func (ps *proxyServing) startAll(ctx context.Context, wg *sync.WaitGroup) {
	listens := map[string]bool{}
	for _, s := range ps.cfg.Servers {
		if s.ProxyListen != "" {
			listens[s.ProxyListen] = true
		}
	}
	ps.socks.keepOnly(listens)
	ps.warnUnusedSockets(ctx, listens)
	for _, s := range ps.cfg.Servers {
		if s.ProxyListen == "" {
			continue
		}
		p, err := ps.newProxy(s, func(ev proxy.Sighting) { ps.out.sighting(ctx, ev) })
		if err == nil {
			var ln net.Listener
			var from string
			if ln, from, err = ps.socks.proxy(s.ProxyListen); err == nil {
				ps.serve(ctx, wg, s, p, ln, from)
				continue
			}
			if errors.Is(err, syscall.EADDRINUSE) {
				ps.start(ctx, wg, &portSource{ps: ps, wg: wg, s: s, p: p})
				continue
			}
		}
		ps.notServed(ctx, s, err)
	}
}

// notServed says in the log, the status and the journal why s's
// proxy is not served.
func (ps *proxyServing) notServed(ctx context.Context, s config.Server, err error) {
	ps.log.Warn("not serving the proxy", "server", s.Name, "listen", s.ProxyListen, "err", err)
	ps.proxies.failed(s.Name, err.Error())
	ps.out.warning(ctx, s.Name, "the proxy for "+s.Name+" is not served on "+s.ProxyListen+": "+err.Error())
}

// serve serves p on ln until ctx ends; from says where ln's socket
// came from (a supervisor, or "" for the process's own).
func (ps *proxyServing) serve(ctx context.Context, wg *sync.WaitGroup, s config.Server, p *proxy.Proxy, ln net.Listener, from string) {
	ps.proxies.put(s.Name, p, from)
	for _, v := range p.Sessions() { // kept across the restart
		ps.out.sighting(ctx, proxy.Sighting{Kind: proxy.EvSession, Server: s.Name, Upstream: v.Upstream})
	}
	for _, up := range p.Released() { // ended by the proxy, maybe in a run killed since
		ps.out.sighting(ctx, proxy.Sighting{Kind: proxy.EvReleased, Server: s.Name, OldUpstream: up})
	}
	ps.start(ctx, wg, &proxySource{server: s.Name, p: p, ln: ln})
}

// proxySource is one server's proxy, serving the listener it was given.
// A proxy that stopped is not started again: its listener is closed,
// and a held socket is the supervisor's to pass again (a restart).
type proxySource struct {
	server string
	p      *proxy.Proxy
	ln     net.Listener
}

func (s *proxySource) name() string { return "proxy " + s.server }

func (s *proxySource) run(ctx context.Context, _ emitFunc) error {
	if err := s.p.Serve(ctx, s.ln); err != nil && ctx.Err() == nil {
		return fmt.Errorf("%w: the proxy stopped: %w", errNoRestart, err)
	}
	return nil
}

// newProxy makes s's proxy, with its sessions as the last run left them.
// It listens nowhere yet.
func (ps *proxyServing) newProxy(s config.Server, observe func(proxy.Sighting)) (*proxy.Proxy, error) {
	headers, err := s.ExpandedHeaders(os.Getenv)
	if err != nil {
		return nil, err
	}
	return proxy.New(proxy.Options{Server: s.Name, Upstream: s.URL, Secret: ps.proxies.secret, AllowInsecure: s.AllowInsecure, Headers: headers,
		IdleTimeout: s.IdleTimeout.Duration, KeepWarm: s.KeepWarm, StateFile: filepath.Join(ps.stateDir, proxyStateName(s.Name)),
		OnSighting: observe, Logger: ps.log})
}

// proxySaw turns what a proxy saw into signals: the losses it met and
// whether it healed them. It runs on the proxy's request goroutines and
// only queues.
func (d *daemon) proxySaw(ctx context.Context, ev proxy.Sighting) {
	switch ev.Kind {
	case proxy.EvSession, proxy.EvUpstream:
		d.proxyOpened(ctx, ev.Server, ev.Upstream)
	case proxy.EvReleased:
		d.toDirectEntries(ctx, ev.Server, health.SignalOf(health.ProxyReleased{Session: ev.OldUpstream}))
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
	}
}

// oauthSeen: a proxied server signs in with OAuth, which no proxy can
// carry. The journal says so once, with the command that puts each host
// that goes through it back at the server's own URL.
func (d *daemon) oauthSeen(ctx context.Context, ev proxy.Sighting) {
	s, ok := d.server(ev.Server)
	if !ok {
		return
	}
	d.proxies.sawOAuth(s.URL)
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
	d.toDirectEntries(ctx, proxied, health.SignalOf(health.ProxyUpstream{Session: upstream}))
}

// toDirectEntries sends sig, about an upstream session of the proxied
// entry, to every direct entry of the same URL.
func (d *daemon) toDirectEntries(ctx context.Context, proxied string, sig health.Signal) {
	p, ok := d.server(proxied)
	if sig.Session == "" || !ok {
		return
	}
	for _, s := range d.cfg.Servers {
		if s.ProxyListen == "" && sameURL(s.URL, p.URL) {
			sig.Server = s.Name
			d.send(ctx, signalIn{sig: sig})
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
		d.proxies.setIdleTimeout(ev.Server, d.mainHost().model.Timeout(ev.Server))
	}
}
