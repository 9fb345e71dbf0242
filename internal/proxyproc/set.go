package proxyproc

import (
	"cmp"
	"maps"
	"os"
	"sync"
	"time"

	"github.com/mcpwatchdog/watchdog/healer/proxy"
	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/metrics"
	"github.com/mcpwatchdog/watchdog/internal/proxywire"
)

// Set is the session-keeping proxies of a process, by server: the
// ones it serves itself, or (apart) what the proxy process that serves
// them last said of them. The loop, the status and the proxies' own
// goroutines read it, so it has a lock of its own.
type Set struct {
	secret string // the first segment of every proxy's path
	mu     sync.Mutex
	by     map[string]*proxy.Proxy
	// problems says, per server, why its proxy is not served now.
	problems map[string]string
	oauth    map[string]bool // upstream URLs seen to sign in with OAuth
	// from names, per served proxy, the supervisor that passed its socket.
	from map[string]string
	// changed is signalled (never blocking) when a proxy is served or
	// fails: the proxy process tells its daemon at once.
	changed chan struct{}
	apart   apartProxies
}

// apartProxies is what a daemon knows of the proxy process that serves
// its proxies (Options.ProxyProcess).
type apartProxies struct {
	on bool
	// last is the process's last word, nil while no process is linked;
	// down then says why.
	last *proxywire.Proxies
	down string
	// timeouts are the idle timeouts learned per server, sent to the
	// process at each link and change (tune is signalled).
	timeouts map[string]time.Duration
	tune     chan struct{}
}

// NewSet is the proxies of a process whose URLs carry secret; none yet.
func NewSet(secret string) *Set {
	return &Set{secret: secret, by: map[string]*proxy.Proxy{}, problems: map[string]string{}, oauth: map[string]bool{},
		from: map[string]string{}, changed: make(chan struct{}, 1),
		apart: apartProxies{down: "the proxy process (watchdog proxy) is not linked yet", timeouts: map[string]time.Duration{}, tune: make(chan struct{}, 1)}}
}

// Secret is the first segment of every proxy's path.
func (ps *Set) Secret() string { return ps.secret }

// follow makes the set the word of a proxy process apart (Follower).
func (ps *Set) follow() {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.apart.on = true
}

func poke(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// Problem says why server's proxy is not served ("" when it is, or was
// never tried).
func (ps *Set) Problem(server string) string {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.apart.on {
		if ps.apart.last == nil {
			return ps.apart.down
		}
		return ps.remote(server).Problem
	}
	return ps.problems[server]
}

// remote is the proxy process's word on server's proxy (mu held).
func (ps *Set) remote(server string) proxywire.Proxy {
	for _, p := range ps.apart.last.Proxies {
		if p.Server == server {
			return p
		}
	}
	return proxywire.Proxy{Server: server, Problem: "the proxy process (watchdog proxy) does not serve it (yet): it runs another config"}
}

// Served reports whether server's proxy is served now.
func (ps *Set) Served(server string) bool {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.apart.on {
		return ps.apart.last != nil && ps.remote(server).Served
	}
	return ps.by[server] != nil
}

// SawOAuth notes that the server behind a proxy signs in with OAuth.
func (ps *Set) SawOAuth(upstream string) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.oauth[upstream] = true
}

// OAuthUpstreams are the servers behind proxies seen to sign in with OAuth.
func (ps *Set) OAuthUpstreams() map[string]bool {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return maps.Clone(ps.oauth)
}

// failed notes that server's proxy is not served, and why.
func (ps *Set) failed(server, why string) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.problems[server] = why
	poke(ps.changed)
}

// Put notes that server's proxy is served now, on a socket from a
// supervisor (from) or the process's own ("").
func (ps *Set) Put(server string, p *proxy.Proxy, from string) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.by[server] = p
	ps.from[server] = from
	delete(ps.problems, server)
	poke(ps.changed)
}

// Get is server's proxy, nil when this process serves none.
func (ps *Set) Get(server string) *proxy.Proxy {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return ps.by[server]
}

// SetIdleTimeout gives server's proxy the idle timeout its server keeps:
// at once when this process serves it, else at the proxy process's next
// word from the daemon.
func (ps *Set) SetIdleTimeout(server string, d time.Duration) {
	if p := ps.Get(server); p != nil {
		p.SetIdleTimeout(d)
		return
	}
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.apart.on && ps.apart.timeouts[server] != d {
		ps.apart.timeouts[server] = d
		poke(ps.apart.tune)
	}
}

// linked notes the proxy process's word (nil: none is linked, for why).
func (ps *Set) linked(last *proxywire.Proxies, why string) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.apart.last, ps.apart.down = last, why
}

// idleTimeouts are the learned idle timeouts to send the proxy process.
func (ps *Set) idleTimeouts() map[string]time.Duration {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return maps.Clone(ps.apart.timeouts)
}

// AddProxies puts into the status whether each configured proxy
// (listen: its address by server) is served now, and its host sessions.
func (ps *Set) AddProxies(st *health.Status, listen map[string]string) {
	for i := range st.Servers {
		ss := &st.Servers[i]
		ss.ProxyListen = listen[ss.Name]
		if ss.ProxyListen == "" {
			continue
		}
		w, ok := ps.word(ss.Name)
		if !ok {
			ss.ProxyProblem = cmp.Or(w.Problem, "not started yet")
			continue
		}
		ss.ProxyServed, ss.ProxyBridges, ss.ProxySocket = true, w.Bridges, w.Socket
		if w.Era != "" { // learned from the traffic itself: the freshest word
			ss.Era = w.Era
		}
		ss.ProxySessions = append(ss.ProxySessions, w.Sessions...)
	}
}

// word is what is known of server's proxy, and whether it is served.
func (ps *Set) word(server string) (proxywire.Proxy, bool) {
	ps.mu.Lock()
	if ps.apart.on {
		defer ps.mu.Unlock()
		if ps.apart.last == nil {
			return proxywire.Proxy{Server: server, Problem: ps.apart.down}, false
		}
		w := ps.remote(server)
		return w, w.Served
	}
	p, from, problem := ps.by[server], ps.from[server], ps.problems[server]
	ps.mu.Unlock()
	if p == nil {
		return proxywire.Proxy{Server: server, Problem: problem}, false
	}
	w := proxywire.Proxy{Server: server, Served: true, Socket: from, Era: string(p.Era()), Bridges: p.Bridging()}
	for _, v := range p.Sessions() {
		w.Sessions = append(w.Sessions, health.ProxySession{ID: v.ID, Upstream: v.Upstream,
			Client: v.Client, IdleSeconds: int64(v.Idle.Seconds()), Streaming: v.Streaming, Bridged: v.Bridged})
	}
	return w, true
}

// snapshot is every configured proxy's state (listen: its address by
// server), as the proxy process tells its daemon.
func (ps *Set) snapshot(listen map[string]string) *proxywire.Proxies {
	out := &proxywire.Proxies{PID: os.Getpid()}
	for server, addr := range listen {
		w, _ := ps.word(server)
		w.Listen = addr
		if p := ps.Get(server); p != nil {
			n := p.Paths()
			w.Fast, w.General = n.Fast, n.General
		}
		out.Proxies = append(out.Proxies, w)
	}
	return out
}

// Paths is how each served proxy has served its hosts' requests (the
// metrics read it at each scrape).
func (ps *Set) Paths() []metrics.ProxyPaths {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.apart.on {
		var out []metrics.ProxyPaths
		if ps.apart.last != nil {
			for _, p := range ps.apart.last.Proxies {
				if p.Served {
					out = append(out, metrics.ProxyPaths{Server: p.Server, Fast: p.Fast, General: p.General})
				}
			}
		}
		return out
	}
	out := make([]metrics.ProxyPaths, 0, len(ps.by))
	for server, p := range ps.by {
		n := p.Paths()
		out = append(out, metrics.ProxyPaths{Server: server, Fast: n.Fast, General: n.General})
	}
	return out
}
