package proxy

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
)

// A request the fast path does not take need not cost its connection the
// fast path. Hosts keep their connections alive and send any request on
// whichever is idle: mcp-remote asks for OAuth metadata (GETs the proxy
// answers 404) and opens its GET stream on connections its calls use
// next. Given to net/http for good, such a connection took those calls
// to the general path, and which connection a call found idle was a
// matter of timing: on a busy machine every call of mcp-remote went there.
// So a request without a body (a GET, a DELETE) is lent to the general
// path instead: net/http reads that request and nothing past it, serves
// it, and when it would wait for the next request the connection comes
// back to the fast path, with what the host sent meanwhile still in the
// fast connection's read buffer.

// lendable reports whether the request in the read buffer (why: why the
// fast path does not take it) can be lent rather than given: one whose
// method only the fast path does not take, whole in the buffer with
// nothing after it yet (so what net/http is to read is known without
// trusting how far the head was parsed), and without a body.
func (fc *fastConn) lendable(why string) bool {
	if why != whyMethod || len(fc.replay) > 0 {
		return false
	}
	buf, _ := fc.br.Peek(fc.br.Buffered())
	end := bytes.Index(buf, []byte("\r\n\r\n"))
	return end >= 0 && end+4 == len(buf) && bodiless(buf)
}

// bodiless reports whether the request head raw declares no body as
// net/http reads it: no Transfer-Encoding line, no Content-Length but 0
// (some hosts send one with a DELETE), and every line ended by CRLF
// (net/http ends a line at a bare LF too, so a line this did not see
// could be one).
func bodiless(raw []byte) bool {
	for line := range bytes.SplitSeq(raw, []byte("\r\n")) {
		if bytes.IndexByte(line, '\n') >= 0 {
			return false
		}
		name, value, _ := bytes.Cut(line, []byte(":"))
		switch {
		case equalFold(name, "transfer-encoding"):
			return false
		case equalFold(name, "content-length") && string(bytes.Trim(value, " \t")) != "0":
			return false
		}
	}
	return true
}

// lend hands the connection to the general path for the request in the
// read buffer (lendable) and waits until it is served. It reports
// whether the connection came back; if not, it was closed (the host's
// Connection: close, an error, the server shutting down).
func (fc *fastConn) lend(why string) bool {
	if !fc.s.busy(fc, true) { // busy: a shutdown gives the request its grace
		return false
	}
	fc.rd.clear() // net/http sets its own; and the next read sets the fast path's anew
	l := &lentConn{Conn: fc.conn, br: fc.br, left: fc.br.Buffered(), why: why, ended: make(chan bool, 1)}
	fc.s.general.give(l)
	back := <-l.ended
	return fc.s.busy(fc, false) && back
}

// A lent connection's states.
const (
	lentServing int32 = iota // net/http serves the request
	lentBack                 // served: the connection goes back to the fast path
	lentKept                 // net/http keeps it for good (a host that sent on)
)

// lentConn is a connection lent to the general path for one request. It
// reads through the fast connection's buffered reader, whose goroutine
// waits meanwhile: net/http gets the request's bytes and no more.
type lentConn struct {
	net.Conn
	br      *bufio.Reader
	left    int // bytes of the request net/http has yet to read
	why     string
	counted bool // the request was: a later one is the connection's (lentKept)
	state   atomic.Int32
	ended   chan bool // once: true when the connection goes back, false when closed
	once    sync.Once
}

// Read gives net/http the request, then holds its next read: what the
// host sends after the request is the fast path's.
func (l *lentConn) Read(b []byte) (int, error) {
	switch {
	case l.state.Load() == lentKept:
		return l.br.Read(b)
	case l.left > 0:
		n, err := l.br.Read(b[:min(len(b), l.left)])
		l.left -= n
		return n, err
	case l.state.Load() == lentBack:
		return 0, io.EOF // net/http waits for a next request: it ends the connection, which goes back
	}
	return l.hold(b)
}

// hold is net/http's read past the request, made while the request is
// served (net/http's background read, which hears of a host that goes
// away). It reads what the host sends into the fast connection's buffer
// and returns only with an error: the deadline net/http sets in the past
// once the request is served, or the host gone, which ends the request
// as it should. A host that sends a whole buffer before its answer came
// keeps the connection where it is: net/http reads on, for good.
func (l *lentConn) hold(b []byte) (int, error) {
	for {
		_, err := l.br.Peek(l.br.Buffered() + 1)
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			l.state.CompareAndSwap(lentServing, lentKept)
			return l.br.Read(b)
		case err != nil:
			return 0, err
		}
	}
}

// served is net/http's word that the request was served and the
// connection is kept (http.StateIdle): net/http's next read ends it, and
// it goes back. net/http has read nothing past the request: its
// background read was held, and stopped before this.
func (l *lentConn) served() {
	next := int32(lentBack)
	if l.left != 0 { // net/http saw a shorter head than the fast path: the rest is its own
		next = lentKept
	}
	l.state.CompareAndSwap(lentServing, next)
}

// Close gives the connection back once served; otherwise it closes it.
func (l *lentConn) Close() error {
	back := l.state.Load() == lentBack
	l.once.Do(func() { l.ended <- back })
	if back {
		return nil
	}
	return l.Conn.Close()
}

// CloseWrite lets net/http end a connection it closes gracefully (never
// one it keeps, so never one that goes back).
func (l *lentConn) CloseWrite() error {
	if cw, ok := l.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// reason is why r took the general path: the lent request's reason, then
// (on a connection net/http kept) that the connection was given. A
// request that net/http reads a body for, which bodiless did not see,
// keeps the connection with net/http, which reads it whole.
func (l *lentConn) reason(r *http.Request) string {
	if r.ContentLength != 0 || len(r.TransferEncoding) > 0 {
		l.state.CompareAndSwap(lentServing, lentKept)
	}
	if l.counted {
		return whyConnection
	}
	l.counted = true
	return l.why
}

// connState is the general server's ConnState hook: the pending
// connections' count, and the end of a lent connection's request.
func connState(pending *pendingConns) func(net.Conn, http.ConnState) {
	return func(c net.Conn, state http.ConnState) {
		pending.track(c, state)
		if l, ok := c.(*lentConn); ok && state == http.StateIdle {
			l.served()
		}
	}
}
