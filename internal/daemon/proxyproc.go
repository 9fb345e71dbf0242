package daemon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/mcpwatchdog/watchdog/healer/proxy"
	"github.com/mcpwatchdog/watchdog/internal/config"
	"github.com/mcpwatchdog/watchdog/internal/control"
	"github.com/mcpwatchdog/watchdog/internal/fsutil"
	"github.com/mcpwatchdog/watchdog/internal/host/find"
	"github.com/mcpwatchdog/watchdog/internal/peer"
	"github.com/mcpwatchdog/watchdog/internal/proxywire"
	"github.com/mcpwatchdog/watchdog/internal/sockact"
)

// ProxyOptions is what a caller changes about the proxy process. Each
// field documents its zero value.
type ProxyOptions struct {
	// Logger is the process's log. Zero: discarded.
	Logger *slog.Logger
	// ConfigFile is the config file to follow: when its bytes change to a
	// config that loads, the proxies are served again with it (on the
	// same sockets). Zero: not followed.
	ConfigFile string
	// Sockets are the listening sockets a supervisor passed the process
	// (sockact.Take); each proxy is served on the one of its address.
	// ServeProxies closes them when it returns. Zero: none were passed.
	Sockets sockact.Set
}

// ProxySocketPath is where the proxy process of stateDir tells its
// daemon what its proxies see.
func ProxySocketPath(stateDir string) string { return filepath.Join(stateDir, proxywire.SocketName) }

// ServeProxies is the proxy process (`watchdog proxy`): it serves the
// session-keeping proxy of every server of cfg that names a proxy_listen,
// exactly as the daemon serves them itself, and outlives the daemon: a
// host's call in flight when the daemon dies goes on. What the proxies
// see goes to the daemon over ProxySocketPath (proxywire), kept for it
// while none is linked (proxyHub). It runs until ctx ends.
func ServeProxies(ctx context.Context, cfg config.Config, stateDir string, opts ProxyOptions) error {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if err := fsutil.PrivateDir(stateDir); err != nil {
		return err
	}
	socks := newSockets(opts.Sockets)
	defer socks.close()
	ln, err := control.Listen(ProxySocketPath(stateDir))
	if err != nil {
		return fmt.Errorf("the proxy process's socket: %w", err)
	}
	hub := newProxyHub(opts.Logger)
	var wg sync.WaitGroup
	defer wg.Wait()
	hctx, stopHub := context.WithCancel(ctx)
	defer stopHub()
	wg.Go(func() { hub.accept(hctx, peer.Own(ln, nil)) })
	wg.Go(func() { hub.tell(hctx) })
	for {
		next, err := proxyRun(ctx, cfg, stateDir, opts, socks, hub)
		if err != nil || next == nil || ctx.Err() != nil {
			return err
		}
		opts.Logger.Info("taking the changed config", "path", opts.ConfigFile)
		cfg = *next
	}
}

// proxyRun serves cfg's proxies until ctx ends or the config file changes
// to one that loads, which it returns.
func proxyRun(ctx context.Context, cfg config.Config, stateDir string, opts ProxyOptions, socks *sockets, hub *proxyHub) (*config.Config, error) {
	secret, err := proxySecret(cfg, stateDir)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	defer wg.Wait()
	log := opts.Logger
	start := func(ctx context.Context, wg *sync.WaitGroup, src source) {
		goRun(wg, func() { supervise(ctx, log, src, func(item) bool { return ctx.Err() == nil }) })
	}
	set := newProxySet(secret)
	hub.use(set, cfg)
	ps := &proxyServing{cfg: cfg, stateDir: stateDir, log: log, socks: socks, proxies: set, out: hub, start: start}
	ps.startAll(ctx, &wg)
	var next *config.Config
	if opts.ConfigFile != "" {
		src := newFileSource("config file", opts.ConfigFile, nil, func(ctx context.Context, data []byte, err error) item {
			return reloadIn{proxyReload(ctx, stateDir, opts.ConfigFile, data, err)}
		})
		start(ctx, &wg, emitOnly(src, func(it item) {
			ri, _ := it.(reloadIn)
			r := ri.r
			if r.err != nil {
				log.Warn("the config file changed but does not load; the proxies keep the running config", "err", r.err)
				return
			}
			next = &r.cfg
			cancel()
		}))
	}
	<-ctx.Done()
	wg.Wait()
	return next, nil
}

// proxyReload is the config the file now holds (nil data: the machine as
// found), as the daemon loads it.
func proxyReload(ctx context.Context, stateDir, path string, data []byte, readErr error) reload {
	if readErr != nil {
		return reload{err: readErr}
	}
	if data == nil {
		home, _ := os.UserHomeDir()
		cfg, err := MachineConfig(ctx, stateDir, find.Options{Home: home, GOOS: runtime.GOOS, Getenv: os.Getenv})
		return reload{cfg: cfg, err: err}
	}
	cfg, err := config.Parse(path, data)
	return reload{cfg: cfg, err: err}
}

// emitOnly runs src with take as its emit (on src's goroutine).
func emitOnly(src source, take func(item)) source { return &takenSource{src: src, take: take} }

type takenSource struct {
	src  source
	take func(item)
}

func (t *takenSource) name() string { return t.src.name() }

func (t *takenSource) run(ctx context.Context, _ emitFunc) error {
	return t.src.run(ctx, func(it item) bool {
		t.take(it)
		return ctx.Err() == nil
	})
}

// A daemon slower than this to take a line is cut off: it reconnects,
// and nothing a host waits for waits on it.
const hubWriteTimeout = 5 * time.Second

// hubBacklog bounds what the proxy process keeps for a daemon while none
// is linked (a restart, a crash): the oldest lines go first, counted.
// hubQueue bounds what waits for one linked daemon.
const (
	hubBacklog = 4096
	hubQueue   = 8192
)

// errWireSlow: a linked daemon took its lines too slowly and was cut off.
var errWireSlow = errors.New("the daemon takes the proxy's lines too slowly")

// proxyHub is the proxy process's side of proxywire: it hands each linked
// daemon what the proxies see and their state, and keeps what they see
// while no daemon is linked. No call waits on it: a line that finds no
// room is dropped and counted.
type proxyHub struct {
	log     *slog.Logger
	mu      sync.Mutex
	links   map[*hubLink]struct{}
	backlog [][]byte
	dropped int
	set     *proxySet
	listen  map[string]string // proxy_listen by server
	// use is signalled when set changes (a reload), for tell.
	swapped chan struct{}
}

type hubLink struct {
	conn net.Conn
	out  chan []byte
	once sync.Once
}

func (l *hubLink) close() { l.once.Do(func() { _ = l.conn.Close() }) }

func newProxyHub(log *slog.Logger) *proxyHub {
	return &proxyHub{log: log, links: map[*hubLink]struct{}{}, swapped: make(chan struct{}, 1)}
}

// use makes set (of cfg's proxies) the one the hub speaks of.
func (h *proxyHub) use(set *proxySet, cfg config.Config) {
	listen := map[string]string{}
	for _, s := range cfg.Servers {
		if s.ProxyListen != "" {
			listen[s.Name] = s.ProxyListen
		}
	}
	h.mu.Lock()
	h.set, h.listen = set, listen
	h.mu.Unlock()
	poke(h.swapped)
}

func (h *proxyHub) sighting(_ context.Context, ev proxy.Sighting) {
	s := proxywire.FromSighting(ev)
	h.send(proxywire.Message{Sighting: &s}, true)
}

func (h *proxyHub) warning(_ context.Context, server, detail string) {
	h.send(proxywire.Message{Warning: &proxywire.Warning{Server: server, Detail: detail}}, true)
}

// send hands m to every linked daemon; keep: to the backlog when none is.
func (h *proxyHub) send(m proxywire.Message, keep bool) {
	line, err := proxywire.Encode(m)
	if err != nil {
		h.log.Warn("cannot encode a line for the daemon", "err", err)
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.links) == 0 {
		if keep {
			if len(h.backlog) == hubBacklog {
				h.backlog = h.backlog[1:]
				h.dropped++
			}
			h.backlog = append(h.backlog, line)
		}
		return
	}
	for l := range h.links {
		h.queue(l, line)
	}
}

// queue puts line on l's queue (mu held), or counts it dropped.
func (h *proxyHub) queue(l *hubLink, line []byte) {
	select {
	case l.out <- line:
	default:
		h.dropped++
	}
}

// snapshot is the state of every proxy as a line's message.
func (h *proxyHub) snapshot() proxywire.Message {
	h.mu.Lock()
	set, listen := h.set, h.listen
	h.mu.Unlock()
	if set == nil {
		return proxywire.Message{Proxies: &proxywire.Proxies{PID: os.Getpid()}}
	}
	return proxywire.Message{Proxies: set.snapshot(listen)}
}

// tell sends the proxies' state to every linked daemon at each change
// and every StatusEvery, until ctx ends.
func (h *proxyHub) tell(ctx context.Context) {
	tick := time.NewTicker(proxywire.StatusEvery)
	defer tick.Stop()
	for {
		h.mu.Lock()
		changed := (<-chan struct{})(nil)
		if h.set != nil {
			changed = h.set.changed
		}
		h.mu.Unlock()
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		case <-changed:
		case <-h.swapped:
		}
		h.send(h.snapshot(), false)
	}
}

// accept links every daemon that connects until ctx ends.
func (h *proxyHub) accept(ctx context.Context, ln net.Listener) {
	var wg sync.WaitGroup
	defer wg.Wait()
	stop := context.AfterFunc(ctx, func() { _ = ln.Close() })
	defer stop()
	for {
		conn, err := ln.Accept()
		if err != nil {
			if ctx.Err() == nil {
				h.log.Warn("the proxy process's socket failed; daemons cannot link", "err", err)
			}
			return
		}
		wg.Go(func() { h.serveLink(ctx, conn) })
	}
}

// serveLink gives one daemon the proxies' state, what they hold (every
// host session, every upstream session ended while it was away) and the
// backlog, then what comes, and takes the idle timeouts it learns.
func (h *proxyHub) serveLink(ctx context.Context, conn net.Conn) {
	l := &hubLink{conn: conn, out: make(chan []byte, hubQueue)}
	defer l.close()
	stop := context.AfterFunc(ctx, l.close)
	defer stop()
	h.link(l)
	defer h.unlink(l)
	done := make(chan struct{})
	go func() {
		defer close(done)
		h.readLink(l)
	}()
	h.writeLink(l, done)
	l.close()
	<-done
}

// link registers l with what it must hear first already queued.
func (h *proxyHub) link(l *hubLink) {
	first := []proxywire.Message{h.snapshot()}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.set != nil {
		for server := range h.listen {
			p := h.set.get(server)
			if p == nil {
				continue
			}
			for _, v := range p.Sessions() {
				first = append(first, proxywire.Message{Sighting: &proxywire.Sighting{Kind: proxy.EvSession.String(), Server: server, Upstream: v.Upstream}})
			}
			for _, up := range p.Released() {
				first = append(first, proxywire.Message{Sighting: &proxywire.Sighting{Kind: proxy.EvReleased.String(), Server: server, OldUpstream: up}})
			}
		}
	}
	for _, m := range first {
		if line, err := proxywire.Encode(m); err == nil {
			h.queue(l, line)
		}
	}
	for _, line := range h.backlog {
		h.queue(l, line)
	}
	h.backlog = nil
	if h.dropped > 0 {
		h.log.Warn("lines for the daemon were dropped (none linked for long, or a slow one)", "dropped", h.dropped)
		h.dropped = 0
	}
	h.links[l] = struct{}{}
}

func (h *proxyHub) unlink(l *hubLink) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.links, l)
}

// writeLink writes l's queue until the link ends (done) or fails.
func (h *proxyHub) writeLink(l *hubLink, done <-chan struct{}) {
	for {
		select {
		case <-done:
			return
		case line := <-l.out:
			_ = l.conn.SetWriteDeadline(time.Now().Add(hubWriteTimeout))
			if _, err := l.conn.Write(line); err != nil {
				if errors.Is(err, os.ErrDeadlineExceeded) {
					err = errWireSlow
				}
				h.log.Info("a daemon's link ended", "err", err)
				return
			}
		}
	}
}

// readLink takes what the daemon says until the link ends.
func (h *proxyHub) readLink(l *hubLink) {
	r := proxywire.NewReader(l.conn)
	for {
		m, err := r.Read()
		if err != nil {
			return
		}
		if t := m.IdleTimeout; t != nil && t.Timeout > 0 {
			h.mu.Lock()
			set := h.set
			h.mu.Unlock()
			if set != nil {
				set.setIdleTimeout(t.Server, t.Timeout)
			}
		}
	}
}

// RunMode says what a `watchdog run` process runs as: the proxy process
// alone, or the daemon headless or with a tray, and why.
func RunMode(asProxy, headless, useTray bool) string {
	switch {
	case asProxy:
		return "serving the proxies alone (watchdog proxy)"
	case headless:
		return "running headless (--headless)"
	case useTray:
		return "running with a tray (desktop session bus found)"
	}
	return "running headless (no desktop session bus)"
}
