package proxyproc

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"syscall"
	"time"

	"github.com/mcpwatchdog/watchdog/healer/proxy"
	"github.com/mcpwatchdog/watchdog/internal/config"
	"github.com/mcpwatchdog/watchdog/internal/control"
	"github.com/mcpwatchdog/watchdog/monitor/proc"
)

// A proxy's port held by another program is tried again after
// portRetryFirst, doubling to portRetryMax: a port let go of is served
// within seconds, and a port held all day costs a bind every few seconds.
// Who holds it is looked up (every process's descriptors walked) at the
// first failure and then at most every holderEvery.
const (
	portRetryFirst = 250 * time.Millisecond
	portRetryMax   = 5 * time.Second
	holderEvery    = time.Minute
)

// portSource waits for a proxy's port another program holds, and serves
// the proxy (a proxySource) as soon as it is free. Until then the status
// says the proxy is not served and who holds the port, and the journal
// has a warning naming the port and its holder (again when another
// program is found holding it).
type portSource struct {
	ps *Serving
	wg *sync.WaitGroup // the run's: the proxy it starts is owned there
	s  config.Server
	p  *proxy.Proxy
}

func (w *portSource) Name() string { return "proxy port " + w.s.ProxyListen }

func (w *portSource) Run(ctx context.Context, _ func(none) bool) error {
	w.ps.awaitPort(ctx, w.wg, w.s, w.p)
	return nil
}

// awaitPort serves p as soon as s's port is free.
func (ps *Serving) awaitPort(ctx context.Context, wg *sync.WaitGroup, s config.Server, p *proxy.Proxy) {
	delay := portRetryFirst
	var told string // the holder the last warning named
	var looked time.Time
	holder := ""
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		}
		ln, from, err := ps.Sockets.Proxy(s.ProxyListen)
		if err == nil {
			ps.Log.Info("the proxy's port is free: serving it", "server", s.Name, "listen", s.ProxyListen)
			ps.serve(ctx, wg, s, p, ln, from)
			return
		}
		if !errors.Is(err, syscall.EADDRINUSE) {
			ps.notServed(ctx, s, err)
			return
		}
		if looked.IsZero() || time.Since(looked) >= holderEvery {
			holder, looked = ps.portHolder(ctx, s.ProxyListen), time.Now()
		}
		ps.Proxies.failed(s.Name, fmt.Sprintf("port %s is held by %s (address already in use); served as soon as it is free", s.ProxyListen, holder))
		if holder != told {
			told = holder
			ps.Log.Warn("the proxy's port is held by another program; trying again", "server", s.Name, "listen", s.ProxyListen, "holder", holder)
			ps.Out.Warning(ctx, s.Name, fmt.Sprintf(
				"the proxy for %s is not served: port %s is held by %s; hosts pointed at it fail until it is free, and it is served as soon as it is",
				s.Name, s.ProxyListen, holder))
		}
		timer.Reset(delay)
		delay = min(2*delay, portRetryMax)
	}
}

// portHolder names the process listening on addr for a person.
func (ps *Serving) portHolder(ctx context.Context, addr string) string {
	lctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	h, ok, err := proc.HolderOf(lctx, addr)
	switch {
	case err != nil:
		ps.Log.Debug("cannot tell who holds a port", "listen", addr, "err", err)
		return "another program (which one could not be found: " + err.Error() + ")"
	case !ok:
		return "another program (not found among this user's: another user's, or one that let go of it since)"
	}
	return h.String()
}

// warnUnusedSockets journals each socket a supervisor passed that no
// proxy_listen (listens) and not the control socket uses: the socket unit
// or LaunchAgent was written for another config, and hosts calling there
// wait for an answer that never comes.
func (ps *Serving) warnUnusedSockets(ctx context.Context, listens []string) {
	for _, so := range ps.Sockets.Unused(listens, control.SocketPath(ps.StateDir)) {
		ps.Out.Warning(ctx, "", fmt.Sprintf(
			"%s passed a socket for %s that no proxy_listen of %s names: nothing serves it; `watchdog autostart enable` writes the socket list again",
			so.From, so.Addr(), configName(ps.Config)))
	}
}

// configName names the running config in words.
func configName(cfg config.Config) string {
	if cfg.Path == "" {
		return "the built-in config"
	}
	return cfg.Path
}
