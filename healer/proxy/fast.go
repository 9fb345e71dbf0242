package proxy

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// The fast path: every call of an adopted host goes through the proxy, so
// the common request (a POST on a session the proxy holds, or a host's
// initialize) is served by a small HTTP/1.1 server and client of the
// proxy's own instead of net/http's: one goroutine per host connection
// reads each request's head, passes it to a kept upstream connection with
// only the session header rewritten, and relays the answer as it comes,
// framing and all, spliced by the kernel where it is large. The rules
// (sessions, heals, replays, the guard, sightings) are the general path's
// own functions. A request the fast path does not take (servesFast, and
// the reasons in fasthead.go) gives its connection, with the bytes read of
// it, to net/http (ServeHTTP) for the rest of the connection's life, or,
// when it has no body, lends it to net/http for that request only
// (fastlend.go).

// Bounds of the fast path's host connections.
const (
	hostReadBuf = 8 << 10 // a request head must fit, with its body to take it without a copy
	// hostIdleFor closes a host's kept connection after this long without
	// a request, as the general path's server does.
	hostIdleFor = 2 * time.Minute
)

// fastServer serves the host connections of one Serve.
type fastServer struct {
	p        *Proxy
	pending  *pendingConns
	general  *handoff     // net/http's listener: the connections given to it
	endpoint []byte       // "/<secret>/mcp"
	config   []configLine // the config's headers, for hosts that send none of their own

	mu       sync.Mutex
	conns    map[*fastConn]struct{}
	shutting atomic.Bool
	wg       sync.WaitGroup
}

func newFastServer(p *Proxy, pending *pendingConns, general *handoff) *fastServer {
	return &fastServer{p: p, pending: pending, general: general, endpoint: []byte(p.endpoint), config: p.fastHeaders,
		conns: map[*fastConn]struct{}{}}
}

// serve reads requests from c until it closes, is given to the general
// path, or the server shuts down.
func (s *fastServer) serve(ctx context.Context, c net.Conn) {
	fc := newFastConn(s, c)
	s.mu.Lock()
	if s.shutting.Load() {
		s.mu.Unlock()
		_ = c.Close()
		return
	}
	s.conns[fc] = struct{}{}
	s.mu.Unlock()
	s.pending.track(c, http.StateNew)
	s.wg.Go(func() {
		given := fc.loop(ctx)
		if !given {
			_ = fc.io.Flush() // an answer left for a read that never came
		}
		s.mu.Lock()
		delete(s.conns, fc)
		s.mu.Unlock()
		fc.watch.stop()
		if !given {
			s.pending.track(c, http.StateClosed)
			_ = c.Close()
		}
	})
}

// busy marks fc as serving a request (or not); false when the server is
// shutting down and fc should stop. With shutdown's two steps in the
// other order, either fc sees the shutdown or the shutdown sees fc busy
// (atomics, not the server's lock: no lock shared by every call).
func (s *fastServer) busy(fc *fastConn, b bool) bool {
	fc.serving.Store(b)
	return !s.shutting.Load()
}

// shutdown closes the idle connections at once, gives those serving a
// request until grace to finish it, then closes them too, and waits for
// their goroutines.
func (s *fastServer) shutdown(grace time.Duration) {
	s.shutting.Store(true)
	s.mu.Lock()
	for fc := range s.conns {
		if !fc.serving.Load() {
			endReading(fc.conn)
		}
	}
	s.mu.Unlock()
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	select {
	case <-done:
		return
	case <-time.After(grace):
	}
	s.mu.Lock()
	for fc := range s.conns {
		_ = fc.conn.Close()
	}
	s.mu.Unlock()
	<-done
}

// endReading ends an idle connection's wait for its next request: its
// loop sees the end, and closes it once the answer it left for that read
// (relay) went. Closing it here would lose that answer.
func endReading(c net.Conn) {
	if cr, ok := c.(interface{ CloseRead() error }); ok && cr.CloseRead() == nil {
		return
	}
	_ = c.Close()
}

// fastConn is one host connection on the fast path.
type fastConn struct {
	s       *fastServer
	serving atomic.Bool // a request is being served
	conn    net.Conn
	io      *sockIO // reads (through br) and writes of conn
	br      *bufio.Reader
	rd      lazyDeadline // conn's read deadline: the idle and header timeouts
	watch   hostWatch
	// host is the last Host value that passed the guard: the same on
	// every request of a connection, so it is judged once.
	host []byte
	// Buffers kept from call to call: the upstream request's head (out),
	// the host's answer head (scratch), the server's answer head (ahead,
	// read into ans), an answer's body read to classify it (bodyBuf, and
	// decoded), a request too large for the read buffer (spill).
	out, scratch, ahead, bodyBuf, decoded, spill []byte
	replay                                       []byte // a large request given back (fastbridge.go)
	ans                                          ansHead
	req                                          reqHead
	x                                            upAnswer // the answer under way
	// served is the request being served, and hr and reply the flows' view
	// of it and its answer (fastreq.go): kept from call to call (one
	// request at a time), so a call allocates none of them.
	served fastReq
	hr     fastHostReq
	reply  fastReply
}

func newFastConn(s *fastServer, c net.Conn) *fastConn {
	fc := &fastConn{s: s, conn: c, io: newSockIO(c), rd: lazyDeadline{conn: c}}
	fc.br = bufio.NewReaderSize(fc.io, hostReadBuf)
	fc.watch.init(c, &fc.rd)
	return fc
}

// loop serves requests; it reports whether the connection was given to
// the general path (which closes it then).
func (fc *fastConn) loop(ctx context.Context) (given bool) {
	h := &fc.req
	for first := true; ; first = false {
		timeout := hostIdleFor
		if first {
			timeout = fc.s.p.opts.HeaderTimeout
		}
		fc.rd.set(time.Now().Add(timeout), timeout/64)
		why, err := fc.readHead(h)
		if err != nil {
			return false
		}
		if first {
			fc.s.pending.track(fc.conn, http.StateActive) // a whole head (or one given to net/http, which tracks it on)
		}
		if why == "" {
			why = fc.s.p.fastWhy(fc, h)
		}
		if why == "" {
			if !fc.s.busy(fc, true) {
				return false
			}
			var keep bool
			keep, why = fc.serveOne(ctx, h)
			if !fc.s.busy(fc, false) || (!keep && why == "") {
				return false
			}
		}
		switch {
		case why == "":
		case fc.lendable(why):
			if !fc.lend(why) {
				return false
			}
		default:
			fc.give(why)
			return true
		}
	}
}

// readHead waits for a whole request head in the read buffer and reads
// it; a head the fast path does not take comes back with the reason.
func (fc *fastConn) readHead(h *reqHead) (string, error) {
	for {
		buf, _ := fc.br.Peek(fc.br.Buffered())
		// Read as it comes: a head the fast path does not take (bare LF line
		// ends, which net/http takes, ...) goes to the general path as soon
		// as that is known; but one of another method whole, as it may be
		// lent (fastlend.go).
		why, n := scanHead(buf, h)
		if n > 0 || why != "" && (why != whyMethod || headEnd(buf) > 0) {
			// The answer left for this read goes before anything reuses its
			// buffer (a head read whole without one).
			return why, fc.io.Flush()
		}
		if len(buf) == fc.br.Size() {
			return whyHeadSize, nil
		}
		if _, err := fc.br.Peek(len(buf) + 1); err != nil {
			return "", err
		}
	}
}

// headEnd is the length of the head at buf's start, through its blank
// line, or 0 while buf holds no blank line yet. Lines end as net/http
// (and parseAnswer) read them: at LF, a CR before it dropped. One pass of
// IndexByte a line: a search for "\r\n\r\n" stopped at every CR and
// compared there, and was a twentieth of the proxy's own time per call.
func headEnd(buf []byte) int {
	for at := 0; ; {
		i := bytes.IndexByte(buf[at:], '\n')
		if i < 0 {
			return 0
		}
		at += i + 1
		switch {
		case at < len(buf) && buf[at] == '\n':
			return at + 1
		case at+1 < len(buf) && buf[at] == '\r' && buf[at+1] == '\n':
			return at + 2
		}
	}
}

// give hands the connection, with what was read of it, to the general
// path, for good.
func (fc *fastConn) give(why string) {
	if fc.io.Flush() != nil {
		fc.s.pending.track(fc.conn, http.StateClosed)
		_ = fc.conn.Close()
		return
	}
	fc.rd.clear()
	fc.watch.stop()
	read, _ := fc.br.Peek(fc.br.Buffered())
	read = append(fc.replay, read...)             // a request given back whole (fastbridge.go) first
	fc.s.pending.track(fc.conn, http.StateClosed) // net/http tracks it from here
	fc.s.general.give(&givenConn{Conn: fc.conn, read: bytes.Clone(read), why: why})
}

// handoff is the listener the general path's http.Server serves: it
// accepts the connections the fast path gives it.
type handoff struct {
	addr  net.Addr
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func newHandoff(addr net.Addr) *handoff {
	return &handoff{addr: addr, conns: make(chan net.Conn), done: make(chan struct{})}
}

func (l *handoff) give(c net.Conn) {
	select {
	case l.conns <- c:
	case <-l.done:
		_ = c.Close()
	}
}

func (l *handoff) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *handoff) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *handoff) Addr() net.Addr { return l.addr }

// givenConn is a connection given to the general path: what the fast
// path read of it comes first.
type givenConn struct {
	net.Conn
	read []byte
	why  string // why its first request took the general path
}

func (g *givenConn) Read(b []byte) (int, error) {
	if len(g.read) > 0 {
		n := copy(b, g.read)
		g.read = g.read[n:]
		return n, nil
	}
	return g.Conn.Read(b)
}

// CloseWrite lets net/http end a connection it closes gracefully.
func (g *givenConn) CloseWrite() error {
	if cw, ok := g.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// reason is why this connection's next request takes the general path:
// its first one's reason, then that the connection was given.
func (g *givenConn) reason(*http.Request) string {
	why := g.why
	g.why = whyConnection
	return why
}

// handed is a connection the fast path handed to the general path, given
// (givenConn) or lent (lentConn): it says why each of its requests took
// the general path.
type handed interface {
	reason(r *http.Request) string
}

// handedKey carries a request's handed connection in its context.
type handedKey struct{}

// connContext is the general server's ConnContext.
func connContext(ctx context.Context, c net.Conn) context.Context {
	if g, ok := c.(handed); ok {
		return context.WithValue(ctx, handedKey{}, g)
	}
	return ctx
}

// generalWhy is why r takes the general path, for the counter.
func generalWhy(r *http.Request) string {
	if g, ok := r.Context().Value(handedKey{}).(handed); ok {
		return g.reason(r)
	}
	return whyConnection
}

// errHostGone: the host closed its connection while its call ran.
var errHostGone = errors.New("the host went away")

// accept serves each connection ln hands out on the fast path until ln
// closes. Other errors (out of file descriptors) are waited out, as
// net/http's server does.
func (p *Proxy) accept(ctx context.Context, ln net.Listener, fs *fastServer) error {
	var wait time.Duration
	for {
		c, err := ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) || ctx.Err() != nil {
				return err
			}
			wait = min(max(2*wait, 5*time.Millisecond), time.Second)
			p.log.Warn("the proxy could not accept a connection; trying again", "err", err, "in", wait)
			select {
			case <-time.After(wait):
			case <-ctx.Done():
				return ctx.Err()
			}
			continue
		}
		wait = 0
		fs.serve(ctx, c)
	}
}
