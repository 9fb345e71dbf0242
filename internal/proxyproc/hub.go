package proxyproc

import (
	"context"
	"errors"
	"log/slog"
	"maps"
	"net"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpwatchdog/watchdog/healer/proxy"
	"github.com/mcpwatchdog/watchdog/internal/config"
	"github.com/mcpwatchdog/watchdog/internal/proxywire"
)

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

// hub is the proxy process's side of proxywire: it hands each linked
// daemon what the proxies see and their state, and keeps what they see
// while no daemon is linked. No call waits on it: a line that finds no
// room is dropped and counted.
type hub struct {
	log     *slog.Logger
	mu      sync.Mutex
	links   map[*hubLink]struct{}
	backlog [][]byte
	dropped int
	set     *Set
	listen  map[string]string // proxy_listen by server
	// use is signalled when set changes (a reload), for tell.
	swapped chan struct{}
	// socks are the process's sockets, handed to each daemon (sockets);
	// told is the addresses last handed to every linked one.
	socks *Sockets
	told  string
	// stop ends the process: a daemon said Stop.
	stop func(why string)
}

type hubLink struct {
	conn net.Conn
	out  chan []byte
	// sockets asks the writer to hand the daemon the sockets served now.
	sockets chan struct{}
	once    sync.Once
}

func (l *hubLink) close() { l.once.Do(func() { _ = l.conn.Close() }) }

func newHub(log *slog.Logger, socks *Sockets, stop func(why string)) *hub {
	return &hub{log: log, links: map[*hubLink]struct{}{}, swapped: make(chan struct{}, 1), socks: socks, stop: stop}
}

// use makes set (of cfg's proxies) the one the hub speaks of.
func (h *hub) use(set *Set, cfg config.Config) {
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

func (h *hub) Sighting(_ context.Context, ev proxy.Sighting) {
	s := proxywire.FromSighting(ev)
	h.send(proxywire.Message{Sighting: &s}, true)
}

func (h *hub) Warning(_ context.Context, server, detail string) {
	h.send(proxywire.Message{Warning: &proxywire.Warning{Server: server, Detail: detail}}, true)
}

// send hands m to every linked daemon; keep: to the backlog when none is.
func (h *hub) send(m proxywire.Message, keep bool) {
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
func (h *hub) queue(l *hubLink, line []byte) {
	select {
	case l.out <- line:
	default:
		h.dropped++
	}
}

// snapshot is the state of every proxy as a line's message.
func (h *hub) snapshot() proxywire.Message {
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
func (h *hub) tell(ctx context.Context) {
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
		h.tellSockets()
	}
}

// tellSockets has every linked daemon handed the sockets served now when
// they changed since it last did (a proxy served at last, a reload).
func (h *hub) tellSockets() {
	served, _ := h.served()
	h.mu.Lock()
	defer h.mu.Unlock()
	if key := strings.Join(served, " "); key != h.told {
		h.told = key
		for l := range h.links {
			poke(l.sockets)
		}
	}
}

// served is the addresses of the proxies served now, sorted, and their
// servers' names.
func (h *hub) served() (listens, servers []string) {
	h.mu.Lock()
	set, listen := h.set, h.listen
	h.mu.Unlock()
	if set == nil || h.socks == nil {
		return nil, nil
	}
	for _, server := range slices.Sorted(maps.Keys(listen)) {
		if set.Get(server) != nil {
			listens, servers = append(listens, listen[server]), append(servers, server)
		}
	}
	return listens, servers
}

// handSockets writes the line that hands l's daemon a duplicate of each
// socket served now (proxywire.Sockets), so that it holds them while this
// process restarts.
func (h *hub) handSockets(l *hubLink) error {
	listens, _ := h.served()
	var files []*os.File
	defer func() {
		for _, f := range files {
			_ = f.Close()
		}
	}()
	var names []string
	for _, addr := range listens {
		f, err := h.socks.File(addr)
		if err != nil {
			h.log.Warn("cannot hand the daemon a proxy's socket", "listen", addr, "err", err)
			continue
		}
		files, names = append(files, f), append(names, addr)
	}
	uc, ok := l.conn.(*net.UnixConn)
	if !ok || len(files) == 0 {
		return nil
	}
	line, err := proxywire.Encode(proxywire.Message{Sockets: &proxywire.Sockets{Listen: names}})
	if err != nil {
		return err
	}
	_ = l.conn.SetWriteDeadline(time.Now().Add(hubWriteTimeout))
	return proxywire.WriteWithFiles(uc, line, files)
}

// accept links every daemon that connects until ctx ends.
func (h *hub) accept(ctx context.Context, ln net.Listener) {
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
func (h *hub) serveLink(ctx context.Context, conn net.Conn) {
	l := &hubLink{conn: conn, out: make(chan []byte, hubQueue), sockets: make(chan struct{}, 1)}
	poke(l.sockets)
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
func (h *hub) link(l *hubLink) {
	first := []proxywire.Message{h.snapshot()}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.set != nil {
		for server := range h.listen {
			p := h.set.Get(server)
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

func (h *hub) unlink(l *hubLink) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.links, l)
}

// writeLink writes l's queue until the link ends (done) or fails.
func (h *hub) writeLink(l *hubLink, done <-chan struct{}) {
	for {
		select {
		case <-done:
			return
		case <-l.sockets:
			if err := h.handSockets(l); err != nil {
				h.log.Info("a daemon's link ended", "err", err)
				return
			}
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
func (h *hub) readLink(l *hubLink) {
	r := proxywire.NewReader(l.conn)
	for {
		m, err := r.Read()
		if err != nil {
			return
		}
		if m.Stop != nil {
			h.log.Info("a daemon asked the proxy process to end", "why", m.Stop.Why)
			h.stop(m.Stop.Why)
			return
		}
		if t := m.IdleTimeout; t != nil && t.Timeout > 0 {
			h.mu.Lock()
			set := h.set
			h.mu.Unlock()
			if set != nil {
				set.SetIdleTimeout(t.Server, t.Timeout)
			}
		}
	}
}
