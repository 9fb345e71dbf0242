package proxy

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/mcphttp"
)

// httpReq is a host's POST on the net/http path: the flows' hostReq.
type httpReq struct {
	p     *Proxy
	w     http.ResponseWriter
	r     *http.Request
	b     []byte
	start time.Time
}

func (q *httpReq) header() http.Header { return q.r.Header }
func (q *httpReq) body() []byte        { return q.b }
func (q *httpReq) began() time.Time    { return q.start }
func (q *httpReq) resend()             {}
func (q *httpReq) fail(err error)      { badGateway(q.w, err) }
func (q *httpReq) accepted()           { q.w.WriteHeader(http.StatusAccepted) }
func (q *httpReq) movedOnce() bool     { return movedOnce(q.r) }

func (q *httpReq) answer(status int, hostID string, body []byte) {
	q.w.Header().Set("Content-Type", "application/json")
	if hostID != "" {
		q.w.Header().Set(mcphttp.HeaderSessionID, hostID)
	}
	q.w.WriteHeader(status)
	_, _ = q.w.Write(body)
}

func (q *httpReq) exchange(ctx context.Context, up, hostID string) (upReply, error) {
	resp, err := q.p.send(ctx, q.r, q.b, up)
	if err != nil {
		return nil, err
	}
	a, v := q.p.verdict(resp)
	return &httpReply{q: q, a: a, v: v, hostID: hostID}, nil
}

func (q *httpReq) bridge(_ context.Context, s *session, d *mcphttp.Discovery) bool {
	r := moved(q.r)
	switch {
	case s != nil:
		q.p.forwardBridged(q.w, r, q.b, s, q.start)
		return true
	case methodOf(q.b) == "initialize":
		return q.p.bridgeInitialize(q.w, r, q.b, d)
	}
	// A legacy request without a session (its host met the server when it
	// issued none).
	q.p.forwardBridged(q.w, r, q.b, &session{bridged: true}, time.Now())
	return true
}

// httpReply is an upstream answer on the net/http path: the flows' upReply.
type httpReply struct {
	q      *httpReq
	a      answer
	v      mcphttp.Verdict
	hostID string
}

func (x *httpReply) verdict() mcphttp.Verdict { return x.v }
func (x *httpReply) status() int              { return x.a.resp.StatusCode }
func (x *httpReply) session() string          { return x.a.resp.Header.Get(mcphttp.HeaderSessionID) }
func (x *httpReply) contentType() string      { return x.a.resp.Header.Get("Content-Type") }
func (x *httpReply) drop()                    { x.a.resp.Body.Close() }
func (x *httpReply) relay()                   { x.q.p.relay(x.q.w, x.a, x.hostID, x.q.p.opts.MaxAnswer) }

func (x *httpReply) modernRefusal() bool {
	return mcphttp.ModernOnlyRefusalRaw(x.a.resp.StatusCode, x.a.head)
}

func (x *httpReply) readWhole(max int) ([]byte, error) {
	defer x.a.resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(io.MultiReader(bytes.NewReader(x.a.head), x.a.resp.Body), int64(max)+1))
	if err != nil || len(data) > max {
		return nil, fmt.Errorf("the server's initialize answer could not be read whole (at most %d bytes): %v", max, err)
	}
	return data, nil
}

func (x *httpReply) relayWhole(hostID string, data []byte) {
	x.q.p.relay(x.q.w, answer{resp: x.a.resp, head: data}, hostID, int64(len(data)))
}
