package proxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/mcphttp"
)

// spliceOver: body runs at least this long, not yet read, go from the
// server's socket to the host's in the kernel (splice on Linux, through
// io.Copy between the two *net.TCPConn); shorter ones are copied through
// the read buffer, which costs fewer system calls.
const spliceOver = 64 << 10

// upAnswer is an answer the fast path is relaying.
type upAnswer struct {
	u       *upConn
	w       *hostWatch // the host's, armed while the answer is under way
	a       *ansHead   // fc.ans
	hostID  string     // the session id the host knows ("": none goes to it)
	frame   bodyFrame
	read    []byte // body bytes read already (to classify), as they came
	verdict mcphttp.Verdict
	// modernRefusal: a 400 -32022 only a modern-only server gives a
	// legacy request (the server changed eras: bridge.go).
	modernRefusal bool
}

// exchange sends r's request upstream (on the session up, "" for none)
// and reads the answer's head. Only an answer that may say a session is
// lost (mcphttp.MayMeanLost) is read (at most classifyCap) and judged.
func (fc *fastConn) exchange(ctx context.Context, r *fastReq, up, hostID string) (*upAnswer, error) {
	var x *upAnswer
	for attempt := 0; ; attempt++ {
		u, err := fc.send(ctx, r, up)
		if err != nil {
			return nil, err
		}
		fc.watch.arm(u.conn, r.sent)
		if x, err = fc.answerHead(u, r.sent); err == nil {
			break
		}
		_ = u.conn.Close()
		if fc.watch.disarm() {
			return nil, errHostGone
		}
		if attempt > 0 || !u.reused || !u.io.Unsent() {
			return nil, err
		}
		// A kept connection the server closed before a byte of the
		// request went (send writes it with the wait for the answer).
	}
	x.hostID, x.w = hostID, &fc.watch
	if x.a.status == http.StatusUnauthorized && !fc.s.p.oauthSeen.Load() {
		fc.s.p.sawUnauthorized(x.a.header()) // oauth.go: once per run
	}
	if mcphttp.MayMeanLost(x.a.status, x.a.ctype, x.a.length, int64(x.u.br.Buffered()), classifyCap) {
		decoded, err := fc.readUpTo(x, classifyCap)
		if err != nil {
			x.drop()
			return nil, fmt.Errorf("%w: %w", errUnreachable, err)
		}
		// The verdict of these answers reads no header (only its reason,
		// which the proxy does not use, might): none is made.
		x.verdict = mcphttp.JudgeRead(x.a.status, nil, decoded).Verdict
		x.modernRefusal = x.verdict == mcphttp.Stateless && mcphttp.ModernOnlyRefusalRaw(x.a.status, decoded)
	}
	return x, nil
}

// send writes the request on a kept connection, or a new one when the
// kept one turns out closed before a byte of the request went out. A
// request of at most spliceOver bytes is only handed to the connection
// (sockIO.Send): the read of the answer's head writes it, in the same
// wait, and exchange sends it again on another connection when the kept
// one was closed.
func (fc *fastConn) send(ctx context.Context, r *fastReq, up string) (*upConn, error) {
	p := fc.s.p
	out := fc.out[:r.pfx]
	if up != "" {
		out = append(out, "Mcp-Session-Id: "...)
		out = append(out, up...)
		out = append(out, "\r\n"...)
	}
	out = append(out, "Content-Length: "...)
	out = strconv.AppendInt(out, int64(len(r.body)), 10)
	out = append(out, "\r\n\r\n"...)
	inline := len(r.body) <= spliceOver
	if inline {
		out = append(out, r.body...)
	}
	fc.out = out[:r.pfx]
	for attempt := 0; ; attempt++ {
		u, err := p.fast.get(ctx, r.sent)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", errUnreachable, err)
		}
		if inline {
			u.io.Send(out) // written by the read of the answer's head (exchange retries it)
			return u, nil
		}
		u.io.Send(nil)
		n, err := u.io.Write(out)
		if err == nil {
			_, err = u.io.Write(r.body)
		}
		if err == nil {
			return u, nil
		}
		_ = u.conn.Close()
		if n > 0 || !u.reused || attempt > 0 {
			return nil, fmt.Errorf("%w: %w", errUnreachable, err)
		}
	}
}

// answerHead reads the answer's head (past any 1xx), copies it into
// fc.ahead and reads it there, so it stays valid while the body is read.
func (fc *fastConn) answerHead(u *upConn, sent time.Time) (*upAnswer, error) {
	p := fc.s.p
	u.rd.set(sent.Add(p.opts.AnswerTimeout), p.opts.AnswerTimeout/64)
	for {
		raw, err := peekHead(u)
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				return nil, noAnswerWithin(p.opts.AnswerTimeout)
			}
			return nil, fmt.Errorf("%w: %w", errUnreachable, err)
		}
		fc.ahead = append(fc.ahead[:0], raw...)
		_, _ = u.br.Discard(len(raw))
		if err := parseAnswer(fc.ahead, &fc.ans); err != nil {
			return nil, err
		}
		a := &fc.ans
		switch {
		case a.status == http.StatusSwitchingProtocols:
			return nil, errAnswerHead
		case a.status < 200:
			continue // 100 Continue, 103 Early Hints: the answer comes after
		case a.status >= 300 && a.status < 400:
			return nil, redirected(a.status)
		}
		// Only the wait for the head is bounded: a body takes as long as
		// it does (more clears the deadline should it pass meanwhile).
		fc.x = upAnswer{u: u, a: a, frame: frameOf(a)}
		return &fc.x, nil
	}
}

// peekHead waits until the read buffer holds a whole answer head and
// returns it (still unread).
func peekHead(u *upConn) ([]byte, error) {
	for {
		buf, _ := u.br.Peek(u.br.Buffered())
		if n := headEnd(buf); n > 0 {
			return buf[:n], nil
		}
		if len(buf) == u.br.Size() {
			return nil, fmt.Errorf("the server's answer head is over %d bytes", u.br.Size())
		}
		if _, err := u.br.Peek(len(buf) + 1); err != nil {
			return nil, err
		}
	}
}

// readUpTo reads x's body as it came into x.read until it ends or max
// of it (decoded) is read, and returns what was decoded. A body read in
// part already (to judge it) is read on from there.
func (fc *fastConn) readUpTo(x *upAnswer, max int) ([]byte, error) {
	if len(x.read) == 0 {
		fc.decoded = fc.decoded[:0]
		x.read = fc.bodyBuf[:0]
	}
	keep := func(p []byte) { fc.decoded = append(fc.decoded, p...) }
	for !x.frame.done() && len(fc.decoded) < max {
		p, err := x.u.more()
		if len(p) == 0 {
			if x.frame.kind == frameClose && errors.Is(err, io.EOF) {
				x.frame.kind = frameNone
				break
			}
			return nil, err
		}
		n, err := x.frame.take(p[:min(len(p), max-len(fc.decoded))], keep)
		x.read = append(x.read, p[:n]...)
		_, _ = x.u.br.Discard(n)
		if err != nil {
			return nil, err
		}
	}
	fc.bodyBuf = x.read
	return fc.decoded, nil
}

// readWhole reads x's whole body, decoded, at most max bytes: an
// initialize answer the proxy must read before the host has it.
func (fc *fastConn) readWhole(x *upAnswer, max int) ([]byte, error) {
	data, err := fc.readUpTo(x, max+1)
	switch {
	case err != nil:
		x.drop()
		return nil, fmt.Errorf("the server's initialize answer could not be read whole: %w", err)
	case len(data) > max || !x.frame.done():
		x.drop()
		return nil, fmt.Errorf("the server's initialize answer could not be read whole (at most %d bytes)", max)
	}
	x.finish()
	return data, nil
}

// relay sends the answer to the host as it comes: its head, what was read
// of the body, then the rest, one write per read of the server's, so an
// SSE event reaches the host at once. At most limit bytes of body. keep:
// the host's connection goes on.
//
// The answer's last write is left to the host connection's next read
// (sockIO.Send), which writes it and then waits for the host's next
// request: a read right after the write would find nothing yet, a system
// call per call for EAGAIN that nginx does not make. Whatever ends or
// gives away the connection without reading it flushes first.
func (fc *fastConn) relay(x *upAnswer, limit int64, closing bool) bool {
	closing = closing || !x.frame.hostCanKeep()
	out := fc.hostHead(x.a, x.hostID, closing, true)
	out = append(out, x.read...)
	sent := int64(len(x.read))
	for !x.frame.done() {
		if x.u.br.Buffered() == 0 {
			if len(out) > 0 && !fc.write(x, out) {
				return false
			}
			out = out[:0]
			if k := min(x.frame.spliceable(), limit-sent); k >= spliceOver {
				x.u.rd.clear()
				n, err := io.Copy(fc.conn, io.LimitReader(x.u.conn, k)) // splice(2) between the sockets
				sent += n
				x.frame.skip(n)
				if err != nil || n < k {
					return fc.cut(x, out, nil)
				}
				continue
			}
		}
		p, err := x.u.more()
		if len(p) == 0 {
			if x.frame.kind == frameClose && errors.Is(err, io.EOF) {
				x.frame.kind = frameNone
				break
			}
			return fc.cut(x, out, err)
		}
		n, ferr := x.frame.take(p, nil)
		sent += int64(n)
		if sent > limit {
			fc.s.p.log.Warn(answerCut, "limit", limit)
			return fc.cut(x, out, nil)
		}
		out = append(out, p[:n]...)
		_, _ = x.u.br.Discard(n)
		if ferr != nil {
			return fc.cut(x, out, ferr)
		}
		if x.frame.done() {
			break
		}
		if !fc.write(x, out) {
			return false
		}
		out = out[:0]
	}
	fc.scratch = out
	if closing {
		if len(out) > 0 && !fc.write(x, out) {
			return false
		}
	} else {
		fc.io.Send(out) // fc.scratch stays as it is until it went
	}
	x.finish()
	return !closing
}

// write sends b to the host; false (and the answer dropped) when the host
// is gone.
func (fc *fastConn) write(x *upAnswer, b []byte) bool {
	if _, err := fc.io.Write(b); err != nil {
		x.drop()
		return false
	}
	return true
}

// cut ends an answer that cannot be relayed whole (the server broke off,
// its framing is broken, or it is over the limit): what came goes to the
// host, whose connection is then closed, so it sees the answer end short.
func (fc *fastConn) cut(x *upAnswer, out []byte, err error) bool {
	if len(out) > 0 {
		_, _ = fc.io.Write(out)
	}
	if err != nil && !errors.Is(err, io.EOF) {
		fc.s.p.log.Debug("an answer from the server broke off", "err", err)
	}
	x.drop()
	return false
}

// answerWhole sends the host an answer read whole (an initialize's):
// x's head with a Content-Length for data, and data.
func (fc *fastConn) answerWhole(x *upAnswer, hostID string, data []byte, closing bool) bool {
	out := fc.hostHead(x.a, hostID, closing, false)
	out = out[:len(out)-2] // reopen the head for the length
	out = append(out, "Content-Length: "...)
	out = strconv.AppendInt(out, int64(len(data)), 10)
	out = append(out, "\r\n\r\n"...)
	out = append(out, data...)
	fc.scratch = out
	_, err := fc.io.Write(out)
	return err == nil && !closing
}

// hostHead writes the head of a's answer as the host gets it into
// fc.scratch: the status, a's header lines but those of this hop (and of
// its framing unless framed), the session id as the host knows it, and
// Connection: close when the host's connection ends with it.
func (fc *fastConn) hostHead(a *ansHead, hostID string, closing, framed bool) []byte {
	out := append(fc.scratch[:0], "HTTP/1.1 "...)
	out = strconv.AppendInt(out, int64(a.status), 10)
	out = append(out, ' ')
	out = append(out, a.reason...)
	out = append(out, "\r\n"...)
	for i := range a.n {
		if !a.forwarded(i) || (!framed && a.framing(i)) {
			continue
		}
		l := a.lines[i]
		out = append(out, a.raw[l.start:l.vend]...)
		out = append(out, "\r\n"...)
	}
	if hostID != "" && a.hasSess {
		out = append(out, "Mcp-Session-Id: "...)
		out = append(out, hostID...)
		out = append(out, "\r\n"...)
	}
	if closing {
		out = append(out, "Connection: close\r\n"...)
	}
	return append(out, "\r\n"...)
}

// framing reports whether answer line i says how the body is framed.
func (a *ansHead) framing(i int) bool { return a.lines[i].kind == ansFraming }

// more waits for bytes of an answer's body and returns all that are
// read. The deadline of the wait for the head may pass meanwhile: it is
// taken away, and the wait goes on.
func (u *upConn) more() ([]byte, error) {
	if u.br.Buffered() == 0 {
		_, err := u.br.Peek(1)
		if isTimeout(err) {
			u.rd.clear()
			_, err = u.br.Peek(1)
		}
		if err != nil {
			return nil, err
		}
	}
	return u.br.Peek(u.br.Buffered())
}

// finish puts the connection back for the next call, when the answer
// leaves it fit for one, and ends the watch of the host.
func (x *upAnswer) finish() {
	if x.u == nil {
		return
	}
	gone := x.w.disarm()
	if !gone && x.frame.done() && x.a.keeps() && x.u.br.Buffered() == 0 {
		x.u.pool.put(x.u, time.Now())
	} else {
		_ = x.u.conn.Close()
	}
	x.u = nil
}

// drop closes the connection of an answer not read to its end, and ends
// the watch of the host.
func (x *upAnswer) drop() {
	if x.u == nil {
		return
	}
	x.w.disarm()
	_ = x.u.conn.Close()
	x.u = nil
}

// frameKind is how an answer's body is delimited.
type frameKind uint8

const (
	frameNone    frameKind = iota // no body, or all of it passed
	frameLength                   // Content-Length
	frameChunked                  // chunked: its framing passes through as it came
	frameClose                    // until the server closes the connection
)

// bodyFrame follows an answer's body to its end.
type bodyFrame struct {
	kind frameKind
	left int64 // frameLength: bytes still to come
	scan chunkScan
}

func frameOf(a *ansHead) bodyFrame {
	switch {
	case a.bodyless():
		return bodyFrame{}
	case a.chunked:
		return bodyFrame{kind: frameChunked}
	case a.length >= 0:
		return bodyFrame{kind: frameLength, left: a.length}
	}
	return bodyFrame{kind: frameClose}
}

func (f *bodyFrame) done() bool {
	switch f.kind {
	case frameLength:
		return f.left == 0
	case frameChunked:
		return f.scan.done()
	case frameClose:
		return false
	}
	return true
}

// hostCanKeep reports whether the host's connection can go on after this
// body: one delimited only by the end of the connection ends it.
func (f *bodyFrame) hostCanKeep() bool { return f.kind != frameClose }

// take reads p, the body's next bytes, and returns how many belong to it.
func (f *bodyFrame) take(p []byte, data func([]byte)) (int, error) {
	switch f.kind {
	case frameLength:
		n := int(min(int64(len(p)), f.left))
		f.left -= int64(n)
		if data != nil {
			data(p[:n])
		}
		return n, nil
	case frameChunked:
		return f.scan.feed(p, data)
	case frameClose:
		if data != nil {
			data(p)
		}
		return len(p), nil
	}
	return 0, nil
}

// spliceable is how many bytes may pass without being looked at.
func (f *bodyFrame) spliceable() int64 {
	switch f.kind {
	case frameLength:
		return f.left
	case frameChunked:
		return f.scan.dataLeft()
	}
	return 0
}

func (f *bodyFrame) skip(n int64) {
	switch f.kind {
	case frameLength:
		f.left -= n
	case frameChunked:
		f.scan.skipData(n)
	}
}
