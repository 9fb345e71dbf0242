package daemon

import (
	"sync"

	"github.com/mcpwatchdog/watchdog/healer/proxy"
	"github.com/mcpwatchdog/watchdog/internal/health"
)

// proxySet is the session-keeping proxies the daemon serves, by server.
// The loop, the status and the proxies' own goroutines read it, so it has
// a lock of its own.
type proxySet struct {
	secret string // the first segment of every proxy's path
	mu     sync.Mutex
	by     map[string]*proxy.Proxy
}

func newProxySet(secret string) *proxySet {
	return &proxySet{secret: secret, by: map[string]*proxy.Proxy{}}
}

func (ps *proxySet) put(server string, p *proxy.Proxy) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.by[server] = p
}

// get is server's proxy, nil when none is served.
func (ps *proxySet) get(server string) *proxy.Proxy {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return ps.by[server]
}

// addSessions puts each proxy's host sessions into the status.
func (ps *proxySet) addSessions(st *health.Status) {
	for i := range st.Servers {
		p := ps.get(st.Servers[i].Name)
		if p == nil {
			continue
		}
		for _, v := range p.Sessions() {
			st.Servers[i].ProxySessions = append(st.Servers[i].ProxySessions, health.ProxySession{ID: v.ID, Upstream: v.Upstream,
				Client: v.Client, IdleSeconds: int64(v.Idle.Seconds()), Streaming: v.Streaming})
		}
	}
}
