package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/mcphttp"
)

// hostReq is one POST of a host's in the proxy's hands, over the transport
// that carries its bytes: net/http (httpReq, post.go) or the fast HTTP/1.1
// path (fastReq, fastcall.go). The heal is written once, over it: callFlow,
// initFlow and passFlow; the transports differ only in how bytes move.
type hostReq interface {
	header() http.Header
	body() []byte
	began() time.Time
	// exchange sends the request upstream, on the session up ("": none),
	// and reads the answer's head and, where it can say a session is lost,
	// its start: the verdict. hostID is the session id the host knows, the
	// one the answer goes to it under ("": none).
	exchange(ctx context.Context, up, hostID string) (upReply, error)
	// resend: the request goes upstream again; the wait for its answer
	// starts over.
	resend()
	// fail answers the host an error for err (502, 504).
	fail(err error)
	// accepted answers the host 202 Accepted, with no body.
	accepted()
	// answer answers the host a JSON body of the proxy's own, with
	// status, under the session id hostID ("": none).
	answer(status int, hostID string, body []byte)
	// movedOnce: the request was moved to the bridge once already (it is
	// not moved twice).
	movedOnce() bool
	// bridge hands the request to the era bridge: the server answers only
	// the 2026-07-28 protocol now. s is the host's session (nil: none),
	// d what server/discover said (for an initialize, answered from it).
	// False: nothing was answered (the server is no longer modern).
	bridge(ctx context.Context, s *session, d *mcphttp.Discovery) bool
}

// upReply is the server's answer to an exchange, its head read.
type upReply interface {
	verdict() mcphttp.Verdict
	// modernRefusal: a 400 -32022 only a modern-only server gives a
	// legacy request (the server changed eras: bridge.go).
	modernRefusal() bool
	status() int
	session() string // its Mcp-Session-Id
	contentType() string
	// relay writes it to the host as it comes.
	relay()
	// drop lets go of it unread.
	drop()
	// readWhole reads its body whole, at most max bytes.
	readWhole(max int) ([]byte, error)
	// relayWhole writes it, its body read whole as data, under hostID.
	relayWhole(hostID string, data []byte)
}

// The heal's words, said once: what the proxy did for a host's call.
const (
	healedBefore = "the server had lost the session while the host was away; the proxy opened a new one before the host's call"
	healedResent = "the server had lost the session; the proxy opened a new one and sent the host's call again"
	healedAnswer = "the server had lost the session; the proxy opened a new one (the host's answer was for the old one)"
)

// callFlow forwards a request on the host's session s. A session-lost
// answer is the one the proxy heals: a new upstream session, the request
// once more, and the host gets that answer.
func (p *Proxy) callFlow(ctx context.Context, q hostReq, s *session) {
	up, lostBefore, waiting := p.currentOrWaiting(s)
	if waiting { // answered from the last-known server: attach.go
		p.attachedCall(ctx, q, s)
		return
	}
	if up == "" { // released while the host was away, or found lost by a ping
		var err error
		if up, err = p.replace(ctx, s, "", q.header()); err != nil {
			if lostBefore != "" {
				p.failed(s, lostBefore, err)
			}
			q.fail(err)
			return
		}
		if lostBefore != "" {
			p.recovered(s, lostBefore, up, q.began(), healedBefore)
		}
	}
	a, err := q.exchange(ctx, up, s.hostID)
	if err != nil {
		q.fail(err)
		return
	}
	if p.bridgeRefused(ctx, q, a, s, s.init) {
		return
	}
	if a.verdict() != mcphttp.Lost {
		if m := keptListMethod(q.body()); m != "" {
			p.relayKept(q, a, m, s.hostID)
			return
		}
		a.relay()
		return
	}
	next, err := p.replace(ctx, s, up, q.header())
	if err != nil {
		p.failed(s, up, err)
		a.relay()
		return
	}
	a.drop()
	if isResponse(q.body()) {
		// A response to a request of the lost session: whoever asked is
		// gone with it. Nothing to send again.
		p.recovered(s, up, next, q.began(), healedAnswer)
		q.accepted()
		return
	}
	q.resend()
	if a, err = q.exchange(ctx, next, s.hostID); err != nil {
		q.fail(err)
		return
	}
	p.recovered(s, up, next, q.began(), healedResent)
	a.relay()
}

// initFlow forwards a host's initialize. A server that answers with a
// session id gets a host id in its place; one that answers without has no
// sessions, and the proxy keeps nothing.
func (p *Proxy) initFlow(ctx context.Context, q hostReq) {
	a, err := q.exchange(ctx, "", "")
	if err != nil && refusedBeforeSending(err) { // the server is down: attach.go
		if p.attachInit(ctx, q) {
			return
		}
		p.awaiting("initialize", p.opts.InitWait)
		if a, err = p.exchangeWhenUp(ctx, q, "initialize", p.opts.InitWait); a == nil && err == nil {
			return
		}
	}
	if err != nil {
		q.fail(err)
		return
	}
	init := paramsOf(q.body())
	if p.bridgeRefused(ctx, q, a, nil, init) {
		return
	}
	upstream, ok := a.session(), a.status()/100 == 2
	if upstream == "" || !ok {
		if ok {
			p.setStateless(true)
			p.known.seeSessions(false)
			p.relayKept(q, a, "initialize", "")
			return
		}
		a.relay()
		return
	}
	ctype := a.contentType()
	data, err := a.readWhole(maxInitAnswer)
	if err != nil {
		q.fail(err)
		return
	}
	p.setStateless(false)
	p.known.seeSessions(true)
	defer p.seeAnswer("initialize", a.status(), ctype, data) // once the host has its answer
	protocol, caps := initResult(ctype, data)
	now := p.opts.Now()
	s := &session{hostID: newHostID(), init: init, client: clientName(init), upstream: upstream,
		protocol: protocol, caps: caps, last: now, header: keptHeader(q.header())}
	evicted := p.sessions.add(s) // s.last is the table's from here: the host's next call may move it
	p.opts.OnSighting(Sighting{Kind: EvSession, Server: p.opts.Server, Time: now, HostSession: s.hostID,
		Upstream: upstream, Client: s.client, Detail: "a host opened a session through the proxy"})
	a.relayWhole(s.hostID, data)
	p.letGo(ctx, evicted) // once the host has its answer
}

// passFlow forwards a POST that belongs to no session of the proxy's (a
// host's discovery of the server's era, say).
func (p *Proxy) passFlow(ctx context.Context, q hostReq) {
	a, err := q.exchange(ctx, "", "")
	if err != nil && refusedBeforeSending(err) { // the server is down: attach.go
		if p.refuseLegacyDiscover(q) { // legacydown.go
			return
		}
		if a, err = p.passWhenDown(ctx, q); a == nil && err == nil {
			return
		}
	}
	if err != nil {
		q.fail(err)
		return
	}
	// A 2026-07-28 host's request: its answer is its own.
	if !isModernRequest(q.header(), q.body()) && p.bridgeRefused(ctx, q, a, nil, nil) {
		return
	}
	if m := keptPassMethod(q.body()); m != "" {
		p.relayKept(q, a, m, "")
		return
	}
	a.relay()
}

// relayKept relays an answer to a request whose result the last-known
// server keeps (method), read whole to keep it.
func (p *Proxy) relayKept(q hostReq, a upReply, method, hostID string) {
	ctype := a.contentType()
	data, err := a.readWhole(int(p.opts.MaxAnswer))
	if err != nil {
		q.fail(err)
		return
	}
	a.relayWhole(hostID, data)
	p.seeAnswer(method, a.status(), ctype, data)
}

// keptPassMethod is keptListMethod, or "server/discover" for that.
func keptPassMethod(body []byte) string {
	if m := keptListMethod(body); m != "" {
		return m
	}
	if bytes.Contains(body, []byte(`"server/discover"`)) && methodOf(body) == "server/discover" {
		return "server/discover"
	}
	return ""
}

// bridgeRefused takes over a request that the server refused as only a
// modern-only server refuses (400 -32022 naming only 2026-07-28 or later):
// the server changed eras (a restart). The era is learned again and,
// modern-only now, every host session moves to the bridge and the request
// goes on in the 2026-07-28 shape (q.bridge); a is let go of. The version
// is checked before anything runs, so the refused request did nothing:
// that is its one and only run. False: not such a refusal, or the server
// is not modern-only after all; a is still unread for the caller to
// relay. init is the host's initialize params, to ask server/discover
// with.
func (p *Proxy) bridgeRefused(ctx context.Context, q hostReq, a upReply, s *session, init json.RawMessage) bool {
	if !a.modernRefusal() || q.movedOnce() {
		return false
	}
	e, d := p.relearn(ctx, q.header(), init)
	if e != mcphttp.EraModernOnly {
		return false
	}
	a.drop()
	return q.bridge(ctx, s, &d)
}
