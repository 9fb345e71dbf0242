package daemon

import (
	"context"
	"errors"
	"fmt"
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

// startProxies serves the session-keeping proxy of every server that
// names a proxy_listen, each on the socket a supervisor passed for its
// address or else on one of the daemon's own. A port another program
// holds is tried again until it is free (awaitPort); any other failure is
// a warning in the journal: hosts pointed at that proxy find nothing
// there, which the warning explains.
func (d *daemon) startProxies(ctx context.Context, wg *sync.WaitGroup) {
	listens := map[string]bool{}
	for _, s := range d.cfg.Servers {
		if s.ProxyListen != "" {
			listens[s.ProxyListen] = true
		}
	}
	d.socks.keepOnly(listens)
	d.warnUnusedSockets(ctx, listens)
	for _, s := range d.cfg.Servers {
		if s.ProxyListen == "" {
			continue
		}
		p, err := d.newProxy(s, func(ev proxy.Sighting) { d.proxySaw(ctx, ev) })
		if err == nil {
			var ln net.Listener
			var from string
			if ln, from, err = d.socks.proxy(s.ProxyListen); err == nil {
				d.serveProxy(ctx, wg, s, p, ln, from)
				continue
			}
			if errors.Is(err, syscall.EADDRINUSE) {
				d.startSource(ctx, wg, &portSource{d: d, wg: wg, s: s, p: p})
				continue
			}
		}
		d.proxyNotServed(ctx, s, err)
	}
}

// proxyNotServed says in the log, the status and the journal why s's
// proxy is not served.
func (d *daemon) proxyNotServed(ctx context.Context, s config.Server, err error) {
	d.log.Warn("not serving the proxy", "server", s.Name, "listen", s.ProxyListen, "err", err)
	d.proxies.failed(s.Name, err.Error())
	d.signal(ctx, health.Warning{Server: s.Name,
		Detail: "the proxy for " + s.Name + " is not served on " + s.ProxyListen + ": " + err.Error()})
}

// serveProxy serves p on ln until ctx ends; from says where ln's socket
// came from (a supervisor, or "" for the daemon's own).
func (d *daemon) serveProxy(ctx context.Context, wg *sync.WaitGroup, s config.Server, p *proxy.Proxy, ln net.Listener, from string) {
	d.proxies.put(s.Name, p, from)
	for _, v := range p.Sessions() { // kept across the restart
		d.proxyOpened(ctx, s.Name, v.Upstream)
	}
	for _, up := range p.Released() { // ended by the proxy, maybe in a run killed since
		d.toDirectEntries(ctx, s.Name, health.SignalOf(health.ProxyReleased{Session: up}))
	}
	d.startSource(ctx, wg, &proxySource{server: s.Name, p: p, ln: ln})
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
func (d *daemon) newProxy(s config.Server, observe func(proxy.Sighting)) (*proxy.Proxy, error) {
	headers, err := s.ExpandedHeaders(os.Getenv)
	if err != nil {
		return nil, err
	}
	return proxy.New(proxy.Options{Server: s.Name, Upstream: s.URL, Secret: d.proxies.secret, AllowInsecure: s.AllowInsecure, Headers: headers,
		IdleTimeout: s.IdleTimeout.Duration, KeepWarm: s.KeepWarm, StateFile: filepath.Join(d.stateDir, proxyStateName(s.Name)),
		OnSighting: observe, Logger: d.log})
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
		if p := d.proxies.get(ev.Server); p != nil {
			p.SetIdleTimeout(d.mainHost().model.Timeout(ev.Server))
		}
	}
}
