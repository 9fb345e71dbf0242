package proxy

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"sync"
	"syscall"
	"time"
)

// upstreamConns are the fast path's own connections to the server: plain
// HTTP/1.1, kept between calls, one per call under way, the most recently
// used first (its buffers are warm, and the server's count of connections
// stays at the calls that run at once).
type upstreamConns struct {
	addr   string // host:port to dial
	host   string // the Host header
	target string // the request-target: the URL's path and query
	dialer net.Dialer

	mu    sync.Mutex
	idle  []*upConn
	shut  bool
	sweep *time.Timer // closes connections idle too long; armed while any is kept
	armed bool
}

// upConn is one kept connection to the server.
type upConn struct {
	pool *upstreamConns
	conn net.Conn
	io   *sockIO      // reads (through br) and writes of conn
	rd   lazyDeadline // conn's read deadline: the wait for an answer's head
	br   *bufio.Reader
	raw  syscall.RawConn // for the liveness check before reuse; nil: none
	// peek is the liveness check's function for raw.Read (a method value
	// made once) and what it found.
	peek     func(fd uintptr) bool
	peekedOK bool
	used     time.Time // when it went back to the pool
	// reused: it carried a call before, so the server may have closed it
	// meanwhile.
	reused bool
}

// Bounds of the upstream connections.
const (
	maxIdleFast = maxIdleUpstream // idle connections kept, as the general path's transport
	idleFastFor = 90 * time.Second
	upReadBuf   = 16 << 10 // an answer's head must fit, with the start of its body
	// probeIdleOver: a kept connection idle this long is checked before a
	// call goes out on it (a system call). A server closes its connections
	// when it idles them (seconds) or dies: a restart closes every kept
	// one at once, and a call sent on one then fails though it never
	// reached the server (at 100 ms, a call made right after a restart
	// did: TestGetWaitsOutARestart). A connection that rested less than
	// this was answered on just now; the pool hands out the last one put
	// back, so under load nearly none rest this long: checking every reuse
	// was 3 % of the proxy's CPU at 64 calls at once.
	probeIdleOver = time.Millisecond
)

// newUpstreamConns is the fast path's connections for upstream, or nil
// when the fast path cannot carry its requests: https (TLS and HTTP/2 are
// the general transport's), or a proxy from the environment.
func newUpstreamConns(upstream string) *upstreamConns {
	u, err := url.Parse(upstream)
	if err != nil || u.Scheme != "http" || u.User != nil || u.Opaque != "" || u.Host == "" {
		return nil
	}
	req := &http.Request{URL: u}
	if pu, err := http.ProxyFromEnvironment(req); err != nil || pu != nil {
		return nil
	}
	addr := u.Host
	if u.Port() == "" {
		addr = net.JoinHostPort(u.Hostname(), "80")
	}
	return &upstreamConns{addr: addr, host: u.Host, target: u.RequestURI(),
		dialer: net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}}
}

// get takes a kept connection, or dials a new one. A kept one idle for a
// while is checked first: a server that closed it (its own idle timeout, a
// restart) must not get the call into a dead connection.
func (uc *upstreamConns) get(ctx context.Context, now time.Time) (*upConn, error) {
	for {
		uc.mu.Lock()
		n := len(uc.idle)
		if n == 0 {
			uc.mu.Unlock()
			break
		}
		c := uc.idle[n-1]
		uc.idle[n-1] = nil
		uc.idle = uc.idle[:n-1]
		uc.mu.Unlock()
		if now.Sub(c.used) < idleFastFor && (now.Sub(c.used) < probeIdleOver || c.alive()) {
			return c, nil
		}
		_ = c.conn.Close()
	}
	conn, err := uc.dialer.DialContext(ctx, "tcp", uc.addr)
	if err != nil {
		return nil, err
	}
	c := &upConn{pool: uc, conn: conn, io: newSockIO(conn), rd: lazyDeadline{conn: conn}}
	c.br = bufio.NewReaderSize(c.io, upReadBuf)
	if sc, ok := conn.(syscall.Conn); ok {
		c.raw, _ = sc.SyscallConn()
		c.peek = c.peekAlive
	}
	return c, nil
}

// put keeps c for the next call.
func (uc *upstreamConns) put(c *upConn, now time.Time) {
	c.used, c.reused = now, true
	uc.mu.Lock()
	if uc.shut || len(uc.idle) >= maxIdleFast {
		uc.mu.Unlock()
		_ = c.conn.Close()
		return
	}
	uc.idle = append(uc.idle, c)
	if !uc.armed {
		uc.armed = true
		if uc.sweep == nil {
			uc.sweep = time.AfterFunc(idleFastFor, uc.sweepIdle)
		} else {
			uc.sweep.Reset(idleFastFor)
		}
	}
	uc.mu.Unlock()
}

// closeAll closes the kept connections and every one put back later.
func (uc *upstreamConns) closeAll() {
	uc.mu.Lock()
	idle := uc.idle
	uc.idle, uc.shut = nil, true
	if uc.sweep != nil {
		uc.sweep.Stop()
	}
	uc.mu.Unlock()
	for _, c := range idle {
		_ = c.conn.Close()
	}
}

// sweepIdle closes the connections idle for longer than idleFastFor (the
// general transport's IdleConnTimeout), so a proxy nobody calls holds
// none of the server's; it runs again while any is kept.
func (uc *upstreamConns) sweepIdle() {
	now := time.Now()
	uc.mu.Lock()
	var old []*upConn
	kept := uc.idle[:0]
	for _, c := range uc.idle {
		if now.Sub(c.used) >= idleFastFor {
			old = append(old, c)
		} else {
			kept = append(kept, c)
		}
	}
	clear(uc.idle[len(kept):])
	uc.idle = kept
	uc.armed = len(kept) > 0 && !uc.shut
	if uc.armed {
		uc.sweep.Reset(idleFastFor)
	}
	uc.mu.Unlock()
	for _, c := range old {
		_ = c.conn.Close()
	}
}

// alive reports whether the server has not closed c: nothing to read
// (an answer never comes unasked), no end of stream, no error.
func (c *upConn) alive() bool {
	if c.br.Buffered() > 0 {
		return false // bytes nobody asked for: not a connection to trust a call to
	}
	if c.raw == nil {
		return true // no socket to look at: the call finds out
	}
	c.rd.clear() // the last answer's may have passed
	c.peekedOK = false
	err := c.raw.Read(c.peek)
	return err == nil && c.peekedOK
}

// peekAlive is alive's look at the socket: nothing to read yet.
func (c *upConn) peekAlive(fd uintptr) bool {
	c.peekedOK = idleSocket(fd)
	return true
}

// ansHead is a server's answer head as the fast path reads it: slices into
// the connection's read buffer, valid until the next read.
type ansHead struct {
	raw     []byte
	status  int
	reason  []byte
	proto11 bool  // HTTP/1.1: the connection may be kept
	length  int64 // Content-Length; -1 when absent
	chunked bool
	close   bool // Connection: close
	session []byte
	ctype   []byte
	hasSess bool
	conn    [8][]byte // tokens of Connection naming headers to drop
	nconn   int
	lines   [maxFastLines]headLine
	n       int
}

var errAnswerHead = errors.New("the server's answer has a malformed head")

// parseAnswer reads a complete answer head.
func parseAnswer(raw []byte, a *ansHead) error {
	a.raw, a.status, a.reason, a.proto11, a.length, a.chunked, a.close = raw, 0, nil, false, -1, false, false
	a.session, a.ctype, a.hasSess, a.nconn, a.n = nil, nil, false, 0, 0
	eol := bytes.IndexByte(raw, '\n')
	if eol < 0 {
		return errAnswerHead
	}
	if err := a.statusLine(bytes.TrimSuffix(raw[:eol], []byte("\r"))); err != nil {
		return err
	}
	for at := eol + 1; ; {
		end := bytes.IndexByte(raw[at:], '\n')
		if end < 0 {
			return errAnswerHead
		}
		end += at
		stop := end
		if stop > at && raw[stop-1] == '\r' {
			stop--
		}
		if stop == at {
			return nil
		}
		if err := a.line(raw, at, stop, end+1); err != nil {
			return err
		}
		at = end + 1
	}
}

func (a *ansHead) statusLine(l []byte) error {
	proto, rest, ok := bytes.Cut(l, []byte(" "))
	if !ok || len(rest) < 3 || (len(rest) > 3 && rest[3] != ' ') {
		return errAnswerHead
	}
	switch string(proto) {
	case "HTTP/1.1":
		a.proto11 = true
	case "HTTP/1.0":
	default:
		return errAnswerHead
	}
	code := 0
	for _, c := range rest[:3] {
		if c < '0' || c > '9' {
			return errAnswerHead
		}
		code = code*10 + int(c-'0')
	}
	if code < 100 {
		return errAnswerHead
	}
	a.status = code
	if len(rest) > 3 {
		a.reason = rest[4:]
	}
	if !fieldValue(a.reason) {
		return errAnswerHead
	}
	return nil
}

// line reads one header line raw[start:stop]; next is where the next
// line starts.
func (a *ansHead) line(raw []byte, start, stop, next int) error {
	colon, vs, ve, ok := splitField(raw, start, stop)
	if !ok || a.n == maxFastLines {
		return errAnswerHead
	}
	v := raw[vs:ve]
	kind, err := a.known(raw[start:colon], v)
	if err != nil {
		return err
	}
	a.lines[a.n] = headLine{start: int32(start), colon: int32(colon), vstart: int32(vs), vend: int32(ve), end: int32(next), kind: kind}
	a.n++
	return nil
}

// Kinds of answer lines (headLine.kind).
const (
	ansPassed  lineKind = iota // passed on to the host
	ansFraming                 // Content-Length, Transfer-Encoding: passed on unless the proxy frames the body
	ansHop                     // of this hop only (Connection, Keep-Alive, ...): never passed on
	ansSession                 // Mcp-Session-Id: the host gets its own
)

// known takes note of the headers that frame the answer or name its
// session, and says what becomes of the line.
func (a *ansHead) known(name, v []byte) (lineKind, error) {
	switch len(name) {
	case 2, 7, 10, 16:
		return a.hop(name, v)
	case 12:
		if equalFold(name, "content-type") {
			a.ctype = v
		}
	case 14:
		switch {
		case equalFold(name, "content-length"):
			n, ok := parseLength(v)
			if !ok || (a.length >= 0 && a.length != n) {
				return 0, errAnswerHead
			}
			a.length = n
			return ansFraming, nil
		case equalFold(name, "mcp-session-id"):
			a.session, a.hasSess = v, true
			return ansSession, nil
		}
	case 17:
		if equalFold(name, "transfer-encoding") {
			// As net/http's client: chunked is the one coding it takes,
			// and an HTTP/1.0 answer's is ignored.
			if !equalFold(v, "chunked") || a.chunked {
				return 0, errAnswerHead
			}
			a.chunked = a.proto11
			return ansFraming, nil
		}
	}
	return ansPassed, nil
}

// hop reads the headers of this hop only: the Connection header (its
// tokens name more), Keep-Alive, Proxy-Connection, Upgrade, TE.
func (a *ansHead) hop(name, v []byte) (lineKind, error) {
	switch {
	case equalFold(name, "connection"):
		return ansHop, a.connection(v)
	case equalFold(name, "keep-alive"), equalFold(name, "proxy-connection"), equalFold(name, "upgrade"), equalFold(name, "te"):
		return ansHop, nil
	}
	return ansPassed, nil
}

func (a *ansHead) connection(v []byte) error {
	for tok := range bytes.SplitSeq(v, []byte(",")) {
		tok = bytes.Trim(tok, " \t")
		switch {
		case equalFold(tok, "close"):
			a.close = true
		case equalFold(tok, "keep-alive"), len(tok) == 0:
		case a.nconn == len(a.conn):
			return errAnswerHead
		default:
			a.conn[a.nconn] = tok
			a.nconn++
		}
	}
	return nil
}

// bodyless reports whether the answer has no body whatever its headers
// say (RFC 9112 6.3).
func (a *ansHead) bodyless() bool {
	return a.status < 200 || a.status == http.StatusNoContent || a.status == http.StatusNotModified
}

// keeps reports whether the connection may carry another call once this
// answer's body is read.
func (a *ansHead) keeps() bool {
	return a.proto11 && !a.close && (a.bodyless() || a.chunked || a.length >= 0)
}

// forwarded reports whether answer line i goes on to the host: not one
// of this hop (the connection's own headers, and those it names), not
// the session's (the host gets its own).
func (a *ansHead) forwarded(i int) bool {
	l := a.lines[i]
	if l.kind == ansHop || l.kind == ansSession {
		return false
	}
	for _, tok := range a.conn[:a.nconn] {
		if bytes.EqualFold(a.raw[l.start:l.colon], tok) {
			return false
		}
	}
	return true
}

// header is the answer's headers as net/http would give them, for the
// classification of a refusal.
func (a *ansHead) header() http.Header {
	h := http.Header{}
	for i := range a.n {
		l := a.lines[i]
		h.Add(string(a.raw[l.start:l.colon]), string(a.raw[l.vstart:l.vend]))
	}
	return h
}

// String is the status line for errors.
func (a *ansHead) String() string { return fmt.Sprintf("%d %s", a.status, a.reason) }
