package proxyproc

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/mcpwatchdog/watchdog/healer/proxy"
	"github.com/mcpwatchdog/watchdog/internal/config"
	"github.com/mcpwatchdog/watchdog/internal/supervise"
)

// none is what the proxies' sources emit: nothing; they serve.
type none = struct{}

// LoadSecret is the secret of the proxies' URLs, made on first need and
// kept in the state directory; "" when no server is proxied. A damaged
// secret file stops the start: hosts hold URLs with the old secret, and a
// silent new one would strand them all.
func LoadSecret(cfg config.Config, stateDir string) (string, error) {
	for _, s := range cfg.Servers {
		if s.ProxyListen != "" {
			return proxy.LoadSecret(stateDir)
		}
	}
	return "", nil
}

// URL is the URL to give s's hosts, "" when s is not proxied. It carries
// the secret: only the status, which the user asks for, says it.
func URL(s config.Server, secret string) string {
	if s.ProxyListen == "" {
		return ""
	}
	return proxy.URLFor(s.ProxyListen, secret)
}

// stateName is a proxied server's sessions in the state directory.
func stateName(server string) string { return "proxy-" + server + ".json" }

// knownName is what a proxied server last said of itself (its initialize,
// discovery and lists, proxy.Options.KnownFile) in the state directory:
// what a host that starts while the server is down is attached from.
func knownName(server string) string { return knownPrefix + server + knownSuffix }

const (
	knownPrefix = "known-"
	knownSuffix = ".json"
)

// dropUnknown removes what the state directory keeps of servers no
// longer proxied: a server removed from the config is forgotten.
func (ps *Serving) dropUnknown() {
	proxied := map[string]bool{}
	for _, s := range ps.Config.Servers {
		proxied[s.Name] = s.ProxyListen != ""
	}
	names, _ := filepath.Glob(filepath.Join(ps.StateDir, knownPrefix+"*"+knownSuffix))
	for _, path := range names {
		if proxied[strings.TrimSuffix(strings.TrimPrefix(filepath.Base(path), knownPrefix), knownSuffix)] {
			continue
		}
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			ps.Log.Warn("cannot forget a server no longer proxied", "path", path, "err", err)
		}
	}
}

// A Reporter is where what the proxies see goes: the daemon's loop when
// the daemon serves them itself, the daemons following the proxy process
// when that serves them (hub). Neither may block a call.
type Reporter interface {
	Sighting(ctx context.Context, ev proxy.Sighting)
	Warning(ctx context.Context, server, detail string)
}

// Serving serves the proxies of one config on the sockets of a process
// (the daemon's, or the proxy process's) and reports what they see to
// Out; StartAll runs each proxy (and each wait for a port) under a
// supervisor.
type Serving struct {
	Config   config.Config
	StateDir string
	Log      *slog.Logger
	Sockets  *Sockets
	Proxies  *Set
	Out      Reporter
}

// StartAll serves the session-keeping proxy of every server that names a
// proxy_listen, each on the socket a supervisor passed for its address or
// else on one of the process's own, in goroutines owned by wg and stopped
// by ctx. A port another program holds is tried again until it is free
// (awaitPort); any other failure is a warning in the journal: hosts
// pointed at that proxy find nothing there, which the warning explains.
func (ps *Serving) StartAll(ctx context.Context, wg *sync.WaitGroup) {
	listens := ps.Config.ProxyListens()
	ps.Sockets.KeepOnly(listens)
	ps.warnUnusedSockets(ctx, listens)
	ps.dropUnknown()
	for _, s := range ps.Config.Servers {
		if s.ProxyListen == "" {
			continue
		}
		p, err := ps.newProxy(s, func(ev proxy.Sighting) { ps.Out.Sighting(ctx, ev) })
		if err == nil {
			var ln net.Listener
			var from string
			if ln, from, err = ps.Sockets.Proxy(s.ProxyListen); err == nil {
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

// start runs src under the supervisor.
func (ps *Serving) start(ctx context.Context, wg *sync.WaitGroup, src supervise.Source[none]) {
	supervise.Start(ctx, wg, ps.Log, src, func(none) bool { return ctx.Err() == nil })
}

// notServed says in the log, the status and the journal why s's proxy is
// not served.
func (ps *Serving) notServed(ctx context.Context, s config.Server, err error) {
	ps.Log.Warn("not serving the proxy", "server", s.Name, "listen", s.ProxyListen, "err", err)
	ps.Proxies.failed(s.Name, err.Error())
	ps.Out.Warning(ctx, s.Name, "the proxy for "+s.Name+" is not served on "+s.ProxyListen+": "+err.Error())
}

// serve serves p on ln until ctx ends; from says where ln's socket came
// from (a supervisor, or "" for the process's own).
func (ps *Serving) serve(ctx context.Context, wg *sync.WaitGroup, s config.Server, p *proxy.Proxy, ln net.Listener, from string) {
	ps.Proxies.Put(s.Name, p, from)
	for _, v := range p.Sessions() { // kept across the restart
		ps.Out.Sighting(ctx, proxy.Sighting{Kind: proxy.EvSession, Server: s.Name, Upstream: v.Upstream})
	}
	for _, up := range p.Released() { // ended by the proxy, maybe in a run killed since
		ps.Out.Sighting(ctx, proxy.Sighting{Kind: proxy.EvReleased, Server: s.Name, OldUpstream: up})
	}
	ps.start(ctx, wg, &proxySource{server: s.Name, p: p, ln: ln})
}

// proxySource is one server's proxy, serving the listener it was given.
// A proxy that stopped is not started again: its listener is closed, and
// a held socket is the supervisor's to pass again (a restart).
type proxySource struct {
	server string
	p      *proxy.Proxy
	ln     net.Listener
}

func (s *proxySource) Name() string { return "proxy " + s.server }

func (s *proxySource) Run(ctx context.Context, _ func(none) bool) error {
	if err := s.p.Serve(ctx, s.ln); err != nil && ctx.Err() == nil {
		return fmt.Errorf("%w: the proxy stopped: %w", supervise.ErrNoRestart, err)
	}
	return nil
}

// newProxy makes s's proxy, with its sessions as the last run left them.
// It listens nowhere yet.
func (ps *Serving) newProxy(s config.Server, observe func(proxy.Sighting)) (*proxy.Proxy, error) {
	headers, err := s.ExpandedHeaders(os.Getenv)
	if err != nil {
		return nil, err
	}
	return proxy.New(proxy.Options{Server: s.Name, Upstream: s.URL, Secret: ps.Proxies.secret, AllowInsecure: s.AllowInsecure, Headers: headers,
		IdleTimeout: s.IdleTimeout.Duration, KeepWarm: s.KeepWarm, StateFile: filepath.Join(ps.StateDir, stateName(s.Name)),
		KnownFile: filepath.Join(ps.StateDir, knownName(s.Name)), OnSighting: observe, Logger: ps.Log})
}
