package daemon

import (
	"cmp"
	"sync"

	"github.com/mcpwatchdog/watchdog/healer/proxy"
	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/metrics"
)

// proxySet is the session-keeping proxies the daemon serves, by server.
// The loop, the status and the proxies' own goroutines read it, so it has
// a lock of its own.
type proxySet struct {
	secret string // the first segment of every proxy's path
	mu     sync.Mutex
	by     map[string]*proxy.Proxy
	// problems says, per server, why its proxy is not served now.
	problems map[string]string
}

func newProxySet(secret string) *proxySet {
	return &proxySet{secret: secret, by: map[string]*proxy.Proxy{}, problems: map[string]string{}}
}

// failed notes that server's proxy is not served, and why.
func (ps *proxySet) failed(server, why string) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.problems[server] = why
}

func (ps *proxySet) put(server string, p *proxy.Proxy) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.by[server] = p
	delete(ps.problems, server)
}

// get is server's proxy, nil when none is served.
func (ps *proxySet) get(server string) *proxy.Proxy {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return ps.by[server]
}

// addProxies puts into the status whether each configured proxy
// (listen: its address by server) is served now, and its host sessions.
func (ps *proxySet) addProxies(st *health.Status, listen map[string]string) {
	for i := range st.Servers {
		ss := &st.Servers[i]
		ss.ProxyListen = listen[ss.Name]
		p := ps.get(ss.Name)
		if p == nil {
			if ss.ProxyListen != "" {
				ps.mu.Lock()
				ss.ProxyProblem = cmp.Or(ps.problems[ss.Name], "not started yet")
				ps.mu.Unlock()
			}
			continue
		}
		ss.ProxyServed = true
		for _, v := range p.Sessions() {
			st.Servers[i].ProxySessions = append(st.Servers[i].ProxySessions, health.ProxySession{ID: v.ID, Upstream: v.Upstream,
				Client: v.Client, IdleSeconds: int64(v.Idle.Seconds()), Streaming: v.Streaming})
		}
	}
}

// paths is how each served proxy has served its hosts' requests (the
// metrics read it at each scrape).
func (ps *proxySet) paths() []metrics.ProxyPaths {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	out := make([]metrics.ProxyPaths, 0, len(ps.by))
	for server, p := range ps.by {
		n := p.Paths()
		out = append(out, metrics.ProxyPaths{Server: server, Fast: n.Fast, General: n.General})
	}
	return out
}
