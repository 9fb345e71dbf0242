package proxy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/mcphttp"
)

// The bridge of protocol eras. A modern-only server (2026-07-28 and
// nothing older) refuses every legacy request, initialize included, and
// most hosts speak only the legacy era. For such a server the proxy
// serves the legacy era to its hosts itself:
//
//   - initialize is answered by the proxy from server/discover (the
//     server's capabilities, its info from _meta), with a session id of
//     the proxy's own; notifications/initialized, ping and
//     logging/setLevel are answered here, GET gets 405 (no event stream
//     in that era) and DELETE ends the host's session here;
//   - every other request goes on in the 2026-07-28 shape (toModern,
//     modernHeader): the version, method and name headers, and params._meta
//     with the host's capabilities and info from its initialize; the host's
//     session id never goes upstream; the server's answer comes back as it is.
//
// There is no session upstream, so nothing is ever replayed: a request
// that was sent is never sent again. Only a connection refused before a
// byte was sent is tried again (sendBridged). Bridged requests take the
// general path. Hosts that speak 2026-07-28 themselves, and servers that
// still serve the legacy era, pass untouched as ever.
//
// While the server is down (its connections refused) a legacy host is
// served from the last-known server (attach.go), as every other era's
// host is: its initialize is answered from the kept server/discover at
// once (attachBridged), its lists' first pages from the kept lists, and
// any other request waits for the server as long as one on an attached
// session does (Options.CallWait), then fails naming it.

// bridgePost serves a host's POST when it is the bridge's: a request on a
// bridged session, or an initialize for a modern-only server. False: the
// ordinary paths serve it (nothing was written).
func (p *Proxy) bridgePost(w http.ResponseWriter, r *http.Request, body []byte, began time.Time) bool {
	if id := r.Header.Get(mcphttp.HeaderSessionID); id != "" {
		s := p.bridgedSession(r.Context(), id, r.Header)
		if s == nil {
			return false
		}
		p.touch(s, r.Header)
		p.serveBridged(w, r, body, s, began)
		return true
	}
	// Every call of a host that speaks 2026-07-28 comes this way: its
	// version header lets it pass before the body is read again.
	if mcphttp.IsModernVersion(r.Header.Get(mcphttp.HeaderProtocolVersion)) {
		return false
	}
	initialize := methodOf(body) == "initialize"
	if !initialize && p.Era() != mcphttp.EraModernOnly || isModernRequest(r.Header, body) {
		return false
	}
	if !initialize {
		// A host without a session (it met the server when it issued
		// none), served over the bridge as one.
		p.serveBridged(w, r, body, &session{bridged: true}, began)
		return true
	}
	// An era that cannot be learned because the server is down is left
	// unknown: the ordinary initialize finds the server down too, and
	// attachInit answers it from the last-known server, over the bridge
	// for a modern-only one (attachBridged), on either transport.
	var d *mcphttp.Discovery
	e := p.Era()
	if e == mcphttp.EraUnknown {
		if learned, disc, err := p.learnEra(r.Context(), r.Header, paramsOf(body)); err == nil {
			e, d = learned, &disc
		}
	}
	return e == mcphttp.EraModernOnly && p.bridgeInitialize(w, r, body, d)
}

// bridgedSession is the bridged session id names: one of the table's, or
// one of the proxy's shape it no longer knows (its state file was lost)
// while the server is modern-only, taken on as a new bridged session.
// Nil: not the bridge's.
func (p *Proxy) bridgedSession(ctx context.Context, id string, h http.Header) *session {
	if s, bridged := p.sessions.getBridged(id); s != nil {
		if !bridged || p.Era() == mcphttp.EraUnknown && !p.stillModernOnly(ctx, h, s) {
			return nil
		}
		return s
	}
	if !isHostID(id) || p.sessions.wasEnded(id) || p.knownEra(ctx, h, nil) != mcphttp.EraModernOnly {
		return nil
	}
	s := &session{hostID: id, init: adoptedInit(""), client: adoptedClient, bridged: true, last: p.opts.Now()}
	p.letGo(ctx, p.sessions.add(s))
	p.log.Warn("a host holds a session this proxy no longer knows (its state was lost); bridging it anew")
	return s
}

// stillModernOnly learns the era again for a bridged session kept across
// a restart of the proxy (the book starts unknown each run), and moves
// every host session to it (relearn): true when the server is still
// modern-only, or down (the session stays bridged; its request finds the
// server down as any bridged one does).
func (p *Proxy) stillModernOnly(ctx context.Context, h http.Header, s *session) bool {
	e, _ := p.relearn(ctx, h, s.init)
	return e != mcphttp.EraLegacy
}

// bridgeLocal answers a GET or DELETE on a bridged session. False: not
// the bridge's.
func (p *Proxy) bridgeLocal(w http.ResponseWriter, r *http.Request) bool {
	id := r.Header.Get(mcphttp.HeaderSessionID)
	if id == "" || (r.Method != http.MethodGet && r.Method != http.MethodDelete) {
		return false
	}
	s := p.bridgedSession(r.Context(), id, r.Header)
	if s == nil {
		return false
	}
	if r.Method == http.MethodGet {
		// The legacy spec's answer for a server without a stream; every
		// legacy client takes it (the 2026-07-28 era has no such stream).
		w.Header().Set("Allow", "POST, DELETE")
		rpcError(w, http.StatusMethodNotAllowed, -32000, "Method not allowed: the server speaks 2026-07-28, which has no event stream for a session")
		return true
	}
	p.sessions.end(s.hostID)
	p.opts.OnSighting(Sighting{Kind: EvEnded, Server: p.opts.Server, Time: p.opts.Now(), HostSession: s.hostID,
		Client: s.client, Detail: "the host ended its session"})
	w.WriteHeader(http.StatusOK) // nothing upstream to end
	return true
}

// bridgeInitialize answers a host's initialize in the server's place, from
// server/discover (d, when the caller has just had one; else one is asked
// now, with the host's credentials, info and capabilities). A server that
// refuses the connection (it is down) is answered for from the last-known
// server (attachBridged). False, with nothing written: the server no
// longer answers as a 2026-07-28 server (its era is learned again at the
// next initialize).
func (p *Proxy) bridgeInitialize(w http.ResponseWriter, r *http.Request, body []byte, d *mcphttp.Discovery) bool {
	q := &httpReq{p: p, w: w, r: r, b: body, start: time.Now()}
	if d == nil {
		c, err := p.upstreamClient(r.Header)
		if err != nil {
			badGateway(w, err)
			return true
		}
		disc, _, err := c.Discover(r.Context(), discoverParams(paramsOf(body)))
		if err != nil && refusedBeforeSending(err) && p.attachBridged(r.Context(), q) {
			return true
		}
		if err != nil {
			badGateway(w, fmt.Errorf("%w: server/discover: %w", errUnreachable, err))
			return true
		}
		if !disc.Modern {
			p.setEra(mcphttp.EraUnknown)
			return false
		}
		d = &disc
	}
	return p.openBridged(r.Context(), q, *d, nil)
}

// attachBridged answers a legacy host's initialize, which found the
// server down, from the last-known server when that is a modern-only
// server: its server/discover kept and no initialize (it refuses one).
// The host is bridged at once, from the kept discover, as every other
// era's host is attached at once (attach.go), rather than held for the
// server. The era is not set from what is kept: it is learned at the next
// contact. False: no such server as last seen, or one the proxy knows to
// serve the legacy era.
func (p *Proxy) attachBridged(ctx context.Context, q hostReq) bool {
	if e := p.Era(); e != mcphttp.EraUnknown && e != mcphttp.EraModernOnly {
		return false
	}
	if _, ok := p.known.get("initialize"); ok {
		return false
	}
	kr, ok := p.known.get("server/discover")
	if !ok {
		return false
	}
	d := mcphttp.DiscoveryOf(kr.Result)
	return d.Modern && p.openBridged(ctx, q, d, &kr)
}

// openBridged answers a host's initialize from d and opens its bridged
// session. kept: d is the last-known server's, the server being down;
// nil: the server's answer just now. False, with nothing written: no
// answer could be made of d.
func (p *Proxy) openBridged(ctx context.Context, q hostReq, d mcphttp.Discovery, kept *knownResult) bool {
	init := paramsOf(q.body())
	answer, err := initializeAnswer(idOf(q.body()), hostInfoOf(init), d, p.opts.Server)
	if err != nil {
		return false
	}
	s := &session{hostID: newHostID(), init: init, client: clientName(init), bridged: true, last: p.opts.Now(), header: keptHeader(q.header())}
	ev := p.openedBridged(s, kept) // before s is the table's: the host's next call may move s.last
	evicted := p.sessions.add(s)
	p.opts.OnSighting(ev)
	p.tellBridging()
	q.answer(http.StatusOK, s.hostID, answer)
	p.letGo(ctx, evicted)
	return true
}

// openedBridged is the journal's word of a bridged session s opened: on
// the server's own server/discover, or from the last-known server's
// (kept), the server being down.
func (p *Proxy) openedBridged(s *session, kept *knownResult) Sighting {
	ev := Sighting{Kind: EvSession, Server: p.opts.Server, Time: s.last, HostSession: s.hostID, Client: s.client,
		Detail: "a host opened a session through the proxy, which bridges it to the 2026-07-28 server"}
	if kept != nil {
		name := p.serverName()
		ev.Kind, ev.Known = EvAttached, kept.Seen
		ev.Detail = fmt.Sprintf("a host's initialize found %s down; the proxy answered it from what %s said at %s, and bridges it to the 2026-07-28 server",
			name, name, whenKnown(kept.Seen, s.last))
	}
	return ev
}

// serveBridged serves one message of a host on a bridged session: what
// the legacy era has and 2026-07-28 does not is answered here, the rest
// goes on in the 2026-07-28 shape.
func (p *Proxy) serveBridged(w http.ResponseWriter, r *http.Request, body []byte, s *session, began time.Time) {
	switch method := methodOf(body); {
	case isResponse(body), method == "notifications/initialized":
		// A response answers a request the server made; over the bridge it
		// makes none the host could see. The handshake's end is the
		// proxy's own.
		w.WriteHeader(http.StatusAccepted)
	case method == "initialize": // the host starts over: a new session
		if !p.bridgeInitialize(w, r, body, nil) {
			rpcError(w, http.StatusBadGateway, -32603, "watchdog proxy: the server no longer answers server/discover as a 2026-07-28 server; initialize again")
		}
	case method == "ping":
		p.answerLocally(w, body, map[string]any{})
	case method == "logging/setLevel":
		// 2026-07-28 carries the level in each request's _meta.
		level := logLevelOf(body)
		p.sessions.with(func() { s.logLevel = level })
		p.answerLocally(w, body, map[string]any{})
	default:
		p.forwardBridged(w, r, body, s, began)
	}
}

func (p *Proxy) answerLocally(w http.ResponseWriter, body []byte, result any) {
	out, err := rpcResult(idOf(body), result)
	if err != nil {
		rpcError(w, http.StatusInternalServerError, -32603, "watchdog proxy: "+err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(out)
}

// forwardBridged sends a host's request in the 2026-07-28 shape, once, and
// hands the host the answer as it came (a list's first page kept for the
// last-known server). An answer only a legacy server gives (it lost the
// host's session, or refused the modern version) means the server serves
// the legacy era again (a restart): its era is learned again and, legacy
// now, the host's session is served as any legacy server's, by the
// ordinary path; the server refused the request unrun.
func (p *Proxy) forwardBridged(w http.ResponseWriter, r *http.Request, body []byte, s *session, began time.Time) {
	var level string
	p.sessions.with(func() { level = s.logLevel })
	m, err := toModern(body, hostInfoOf(s.init), level)
	if err != nil {
		rpcError(w, http.StatusBadRequest, -32600, err.Error()+" (a batch, or params that are not an object)")
		return
	}
	out := r.Clone(r.Context())
	out.Header = modernHeader(r.Header, m)
	q := &httpReq{p: p, w: w, r: out, b: m.body, start: began}
	resp, err := p.sendBridged(q, s)
	if resp == nil && err == nil {
		return // answered while the server is down
	}
	if err != nil {
		badGateway(w, err)
		return
	}
	a, v := p.verdict(resp)
	if s.hostID != "" && mcphttp.LegacyRefusalRaw(resp.StatusCode, resp.Header, a.head) && !movedOnce(r) && p.relearnedLegacy(r, s) {
		a.resp.Body.Close()
		p.call(w, moved(r), body, s, began)
		return
	}
	x := &httpReply{q: q, a: a, v: v, hostID: s.hostID}
	if lm := keptListMethod(body); lm != "" {
		p.relayKept(q, x, lm, s.hostID)
		return
	}
	x.relay()
}

// relearn learns the era again after an answer contradicted it, and moves
// every host session to it: to the bridge when the server is modern-only
// now, to sessions of the server's own (opened at each host's next call)
// when it is legacy. Both eras: each stays as it is, served either way. It
// returns the era learned (unknown: no answer, nothing moved) and what
// server/discover said.
func (p *Proxy) relearn(ctx context.Context, h http.Header, init json.RawMessage) (mcphttp.Era, mcphttp.Discovery) {
	e, d, _ := p.learnEra(ctx, h, init)
	switch e {
	case mcphttp.EraModernOnly:
		p.sessions.moveAll(true)
		p.tellBridging()
	case mcphttp.EraLegacy:
		p.sessions.moveAll(false)
	}
	if e != mcphttp.EraUnknown {
		p.log.Info("learned the server's protocol era again after an answer contradicted it", "era", string(e))
	}
	return e, d
}

// relearnedLegacy learns the era again for a bridged request the server
// refused as a legacy server would, and reports whether it is legacy now.
func (p *Proxy) relearnedLegacy(r *http.Request, s *session) bool {
	e, _ := p.relearn(r.Context(), r.Header, s.init)
	return e == mcphttp.EraLegacy
}

// movedKey marks a request the bridge moved between eras once already:
// a server that keeps contradicting itself gets its answer relayed, never
// an endless back and forth.
type movedKey struct{}

func moved(r *http.Request) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), movedKey{}, true))
}

func movedOnce(r *http.Request) bool { return r.Context().Value(movedKey{}) != nil }

// sendBridged sends a bridged request (q, in the 2026-07-28 shape) once.
// A connection the server refused carried nothing: the server is down (a
// restart under way, say), and the request is served as attachedCall
// serves one on a session answered from the last-known server: a list's
// first page from the kept lists, anything else sent once the server
// answers, at most Options.CallWait on, else answered an error that names
// the server. Any other failure reaches the host, never retried: the
// server may have run the request. nil, nil: the host was answered here.
func (p *Proxy) sendBridged(q *httpReq, s *session) (*http.Response, error) {
	ctx := q.r.Context()
	resp, err := p.send(ctx, q.r, q.b, "")
	if err == nil || !refusedBeforeSending(err) {
		return resp, err
	}
	if p.answerKnown(q) {
		return nil, nil
	}
	notUp, err := p.waitUp(ctx, q, s, methodOf(q.b), p.opts.CallWait, func() error {
		var err error
		resp, err = p.send(ctx, q.r, q.b, "")
		return err
	})
	if notUp {
		return nil, nil
	}
	return resp, err
}

// refusedBeforeSending reports whether err is a connection that was never
// made: no byte of the request left.
func refusedBeforeSending(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// touch notes a host's request on s: when, and the headers its replays
// and pings carry.
func (p *Proxy) touch(s *session, h http.Header) {
	now := p.opts.Now()
	p.sessions.with(func() {
		s.last = now
		if !sameKept(s.header, h) { // most calls: the same as the last
			s.header = keptHeader(h)
		}
	})
}

// logLevelOf is logging/setLevel's level.
func logLevelOf(body []byte) string {
	var m struct {
		Params struct {
			Level string `json:"level"`
		} `json:"params"`
	}
	_ = json.Unmarshal(body, &m)
	return m.Params.Level
}
