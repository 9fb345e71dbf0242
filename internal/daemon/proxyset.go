package daemon

import (
	"cmp"
	"maps"
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
	oauth    map[string]bool // upstream URLs seen to sign in with OAuth
	// from names, per served proxy, the supervisor that passed its socket.
	from map[string]string
}

func newProxySet(secret string) *proxySet {
	return &proxySet{secret: secret, by: map[string]*proxy.Proxy{}, problems: map[string]string{}, oauth: map[string]bool{},
		from: map[string]string{}}
}

// problem says why server's proxy is not served ("" when it is, or was
// never tried).
func (ps *proxySet) problem(server string) string {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return ps.problems[server]
}

// sawOAuth notes that the server behind a proxy signs in with OAuth.
func (ps *proxySet) sawOAuth(upstream string) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.oauth[upstream] = true
}

// oauthUpstreams are the servers behind proxies seen to sign in with OAuth.
func (ps *proxySet) oauthUpstreams() map[string]bool {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return maps.Clone(ps.oauth)
}

// failed notes that server's proxy is not served, and why.
func (ps *proxySet) failed(server, why string) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.problems[server] = why
}

// put notes that server's proxy is served now, on a socket from a
// supervisor (from) or the daemon's own ("").
func (ps *proxySet) put(server string, p *proxy.Proxy, from string) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.by[server] = p
	ps.from[server] = from
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
		if e := p.Era(); e != "" { // learned from the traffic itself: the freshest word
			ss.Era = string(e)
		}
		ss.ProxyBridges = p.Bridging()
		ps.mu.Lock()
		ss.ProxySocket = ps.from[ss.Name]
		ps.mu.Unlock()
		for _, v := range p.Sessions() {
			st.Servers[i].ProxySessions = append(st.Servers[i].ProxySessions, health.ProxySession{ID: v.ID, Upstream: v.Upstream,
				Client: v.Client, IdleSeconds: int64(v.Idle.Seconds()), Streaming: v.Streaming, Bridged: v.Bridged})
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
