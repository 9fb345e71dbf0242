package proxy

import (
	"context"
	"net/http"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/mcphttp"
)

// fastHostReq is a host's POST on the fast path: the flows' hostReq. keep
// is what its answer left of the host's connection: it goes on.
type fastHostReq struct {
	fc   *fastConn
	r    *fastReq
	keep bool
}

// hostReq is r for the flows, its upstream request's head made.
func (fc *fastConn) hostReq(r *fastReq) *fastHostReq {
	fc.requestPrefix(r)
	fc.hr = fastHostReq{fc: fc, r: r}
	return &fc.hr
}

func (q *fastHostReq) header() http.Header { return q.r.header() }
func (q *fastHostReq) body() []byte        { return q.r.body }
func (q *fastHostReq) began() time.Time    { return q.r.began }
func (q *fastHostReq) resend()             { q.r.sent = time.Now() }
func (q *fastHostReq) fail(err error)      { q.keep = q.fc.fail(err, q.r.h.close) }
func (q *fastHostReq) accepted()           { q.keep = q.fc.answer(http.StatusAccepted, nil, q.r.h.close) }

func (q *fastHostReq) answer(status int, hostID string, body []byte) {
	q.keep = q.fc.answerAs(status, hostID, body, q.r.h.close)
}

// movedOnce: a request the fast path hands to the bridge goes back to the
// general path unread, and is judged there afresh.
func (q *fastHostReq) movedOnce() bool { return false }

func (q *fastHostReq) exchange(ctx context.Context, up, hostID string) (upReply, error) {
	x, err := q.fc.exchange(ctx, q.r, up, hostID)
	if err != nil {
		return nil, err
	}
	q.fc.reply = fastReply{q: q, x: x} // the answer before it was let go of
	return &q.fc.reply, nil
}

// bridge gives the request back to the general path, which bridges it
// (fastbridge.go).
func (q *fastHostReq) bridge(context.Context, *session, *mcphttp.Discovery) bool {
	q.r.back, q.keep = true, false
	return true
}

// fastReply is an upstream answer on the fast path: the flows' upReply.
type fastReply struct {
	q *fastHostReq
	x *upAnswer
}

func (a *fastReply) verdict() mcphttp.Verdict { return a.x.verdict }
func (a *fastReply) modernRefusal() bool      { return a.x.modernRefusal }
func (a *fastReply) status() int              { return a.x.a.status }
func (a *fastReply) contentType() string      { return string(a.x.a.ctype) }
func (a *fastReply) drop()                    { a.x.drop() }

func (a *fastReply) session() string {
	if !a.x.a.hasSess {
		return ""
	}
	return string(a.x.a.session)
}

func (a *fastReply) relay() {
	q := a.q
	q.keep = q.fc.relay(a.x, q.fc.s.p.opts.MaxAnswer, q.r.h.close)
}

func (a *fastReply) readWhole(max int) ([]byte, error) { return a.q.fc.readWhole(a.x, max) }

func (a *fastReply) relayWhole(hostID string, data []byte) {
	q := a.q
	q.keep = q.fc.answerWhole(a.x, hostID, data, q.r.h.close)
}
