package proxy

import (
	"bytes"
	"context"
	"crypto/subtle"
	"io"
	"net/http"
	"strconv"
	"time"
)

// The fast path's requests: a call on a session (heals and replays as in
// post.go's call, with the same functions), and a host's initialize.

// fastReq is one request on the fast path: its head and whole body.
type fastReq struct {
	h     *reqHead
	body  []byte
	began time.Time
	sent  time.Time   // when the request went upstream last: the wait for an answer counts from it
	took  int         // bytes of the read buffer it holds, let go when it is done
	hdr   http.Header // h.header(), made when a rare step needs it
	pfx   int         // the upstream request's head up to its session line, in fc.out
	back  bool        // the request goes back, unread, to the general path (fastbridge.go)
}

// header is the host's headers as net/http would give them.
func (r *fastReq) header() http.Header {
	if r.hdr == nil {
		r.hdr = r.h.header()
	}
	return r.hdr
}

// fastWhy is why the fast path does not take the request whose head is h
// ("" when it does): the server must take it (servesFast), the request be
// for the proxy's own endpoint, within the size limit, and pass the guard.
func (p *Proxy) fastWhy(fc *fastConn, h *reqHead) string {
	switch {
	case !p.servesFast() || p.eras.modernOnly.Load(): // a modern-only server: the bridge is on the general path
		return whyServer
	case subtle.ConstantTimeCompare(h.target, fc.s.endpoint) != 1:
		return whyTarget
	case h.length > p.opts.MaxRequest:
		return whyFraming
	case !fc.guarded(h):
		return whyGuard
	}
	return ""
}

// guarded runs the general path's guard (foreignFrom) on h's Host and
// Origin. A connection's Host is judged once.
func (fc *fastConn) guarded(h *reqHead) bool {
	var origin []string
	if h.hasOrigin {
		origin = []string{string(h.origin)}
	} else if fc.host != nil && bytes.Equal(fc.host, h.host) {
		return true
	}
	if foreignFrom(string(h.host), origin, fc.conn.LocalAddr()) != "" {
		return false
	}
	if !h.hasOrigin {
		fc.host = bytes.Clone(h.host)
	}
	return true
}

// serveOne serves the request whose head is h. keep: the connection goes
// on. A request the fast path finds it cannot take after all (its session
// or body says so) is left unread and why says why.
func (fc *fastConn) serveOne(ctx context.Context, h *reqHead) (keep bool, why string) {
	p := fc.s.p
	var s *session
	if h.session != nil {
		var bridged bool
		if s, bridged = p.sessions.getBytes(h.session); s == nil && p.isStateless() || bridged {
			return false, whyServer // its header is dropped and counted, or it is bridged: the general path does that
		}
	}
	if fc.bridgeAhead(ctx, h, s) {
		return false, whyServer
	}
	now := time.Now()
	r := &fc.served
	*r = fastReq{h: h, began: now, sent: now}
	if err := fc.readBody(r); err != nil {
		return false, ""
	}
	defer fc.done(r)
	p.paths.fastOne()
	keep = fc.serveRead(ctx, r, s)
	if r.back {
		fc.giveBack(r)
		return false, whyServer
	}
	return keep, ""
}

// serveRead serves the request r, whose body is read, on the host's
// session s (nil: none, or one the proxy does not know).
func (fc *fastConn) serveRead(ctx context.Context, r *fastReq, s *session) bool {
	h := r.h
	switch {
	case h.session == nil && methodOf(r.body) == "initialize":
		return fc.initialize(ctx, r)
	case h.session == nil:
		return fc.pass(ctx, r)
	case s == nil:
		if s = fc.adopt(ctx, r); s == nil {
			return fc.answer(http.StatusNotFound, rpcErrorBody(-32001, errNoSession.Error()), h.close)
		}
	}
	fc.s.p.touchHead(s, h)
	return fc.call(ctx, r, s)
}

// pass forwards a POST that belongs to no session of the proxy's
// (passFlow).
func (fc *fastConn) pass(ctx context.Context, r *fastReq) bool {
	q := fc.hostReq(r)
	fc.s.p.passFlow(ctx, q)
	return q.keep
}

// adopt is post.go's session() for an id the proxy does not know: one of
// its own shape that no host ended is served on a new upstream session.
func (fc *fastConn) adopt(ctx context.Context, r *fastReq) *session {
	p := fc.s.p
	id := string(r.h.session)
	if !isHostID(id) || p.sessions.wasEnded(id) {
		return nil
	}
	return p.adopt(ctx, id, r.header())
}

// touchHead is touch (bridge.go) for a head the fast path read.
func (p *Proxy) touchHead(s *session, h *reqHead) {
	now := p.opts.Now()
	p.sessions.with(func() {
		s.last = now
		if !h.sameKept(s.header) {
			s.header = keptHeader(h.header())
		}
	})
}

// call forwards a request on the host's session s (callFlow).
func (fc *fastConn) call(ctx context.Context, r *fastReq, s *session) bool {
	q := fc.hostReq(r)
	fc.s.p.callFlow(ctx, q, s)
	return q.keep
}

// initialize forwards a host's initialize (initFlow).
func (fc *fastConn) initialize(ctx context.Context, r *fastReq) bool {
	q := fc.hostReq(r)
	fc.s.p.initFlow(ctx, q)
	return q.keep
}

// readBody makes r.body the request's whole body, waiting for it. A body
// that does not fit the read buffer with its head is read into fc.spill
// with a copy of the head, which is read again there.
func (fc *fastConn) readBody(r *fastReq) error {
	h := r.h
	hl, n := len(h.raw), len(h.raw)+int(h.length)
	if fc.br.Buffered() < n {
		fc.rd.clear() // a body takes as long as it takes, as on the general path
	}
	if n <= fc.br.Size() {
		buf, err := fc.br.Peek(n)
		if err != nil {
			return err
		}
		if hl > 0 && &buf[0] != &h.raw[0] { // the buffer slid to take the body: read the head where it is now
			parseHead(buf[:hl], h)
		}
		r.body, r.took = buf[hl:n], n
		return nil
	}
	fc.spill = append(fc.spill[:0], h.raw...)
	fc.spill = append(fc.spill, make([]byte, h.length)...)
	parseHead(fc.spill[:hl], h)
	if _, err := fc.br.Discard(hl); err != nil {
		return err
	}
	if _, err := io.ReadFull(fc.br, fc.spill[hl:n]); err != nil {
		return err
	}
	r.body = fc.spill[hl:n]
	return nil
}

// done lets go of what r held of the read buffer.
func (fc *fastConn) done(r *fastReq) {
	if r.took > 0 {
		_, _ = fc.br.Discard(r.took)
		r.took = 0
	}
	if cap(fc.spill) > maxKeptSpill {
		fc.spill = nil
	}
}

// maxKeptSpill: a connection keeps a buffer for large requests up to this.
const maxKeptSpill = 256 << 10

// requestPrefix writes the upstream request's head, up to where its
// session line goes, into fc.out: the request line, the server's Host,
// the host's header lines but those of this hop and the session's, and
// the config's headers the host did not send.
func (fc *fastConn) requestPrefix(r *fastReq) {
	uc := fc.s.p.fast
	out := append(fc.out[:0], "POST "...)
	out = append(out, uc.target...)
	out = append(out, " HTTP/1.1\r\nHost: "...)
	out = append(out, uc.host...)
	out = append(out, "\r\n"...)
	h := r.h
	for i := range h.n {
		switch h.lines[i].kind {
		case lineKept, linePassed:
			out = append(out, h.whole(i)...)
		}
	}
	for _, c := range fc.s.config {
		if !h.has(c.lower) {
			out = append(out, c.line...)
		}
	}
	fc.out, r.pfx = out, len(out)
}

// has reports whether the head has a header of the lower-case name
// (any token).
func (h *reqHead) has(lower string) bool {
	for i := range h.n {
		if name := h.name(i); len(name) == len(lower) && lowerEqual(name, lower) {
			return true
		}
	}
	return false
}

// lowerEqual compares b with the lower-case s, ignoring b's ASCII case.
func lowerEqual(b []byte, s string) bool {
	for i := range len(b) {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != s[i] {
			return false
		}
	}
	return true
}

// configLine is one of the config's headers, ready to send.
type configLine struct {
	lower string // its name in lower case
	line  []byte // "Name: value\r\n"
}

// configLines are the config's headers as the fast path sends them; nil
// (and no fast path) when one cannot be sent as a header line.
func configLines(headers map[string]string) ([]configLine, bool) {
	var out []configLine
	for k, v := range headers {
		ck := http.CanonicalHeaderKey(k)
		if !isToken([]byte(ck)) || !fieldValue([]byte(v)) {
			return nil, false
		}
		out = append(out, configLine{lower: string(bytes.ToLower([]byte(ck))), line: []byte(ck + ": " + v + "\r\n")})
	}
	return out, true
}

// fail answers the host with the proxy's own error for err, unless the
// host went away.
func (fc *fastConn) fail(err error, closing bool) bool {
	if err == errHostGone {
		return false
	}
	return fc.answer(gatewayStatus(err), rpcErrorBody(-32603, "watchdog proxy: "+err.Error()), closing)
}

// answer sends an answer of the proxy's own: a JSON body or none.
func (fc *fastConn) answer(status int, body []byte, closing bool) bool {
	return fc.answerAs(status, "", body, closing)
}

// answerAs is answer under the session id hostID ("": none).
func (fc *fastConn) answerAs(status int, hostID string, body []byte, closing bool) bool {
	out := append(fc.scratch[:0], "HTTP/1.1 "...)
	out = strconv.AppendInt(out, int64(status), 10)
	out = append(out, ' ')
	out = append(out, http.StatusText(status)...)
	out = append(out, "\r\n"...)
	if hostID != "" {
		out = append(out, "Mcp-Session-Id: "...)
		out = append(out, hostID...)
		out = append(out, "\r\n"...)
	}
	if body != nil {
		out = append(out, "Content-Type: application/json\r\n"...)
	}
	out = append(out, "Content-Length: "...)
	out = strconv.AppendInt(out, int64(len(body)), 10)
	out = append(out, "\r\n"...)
	if closing {
		out = append(out, "Connection: close\r\n"...)
	}
	out = append(out, "\r\n"...)
	out = append(out, body...)
	fc.scratch = out
	_, err := fc.io.Write(out)
	return err == nil && !closing
}
