package proxy

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/mask"
	"github.com/mcpwatchdog/watchdog/internal/mcphttp"
)

// maxInitAnswer bounds the initialize answer, which the proxy reads whole.
const maxInitAnswer = 1 << 20

// errNoSession: a host sent an id the proxy never gave out, or forgot. Its
// text is the answer's message, worded as the TypeScript SDK's servers word it.
//
//lint:ignore ST1005 the message hosts get, as the SDK servers send it
var errNoSession = errors.New("Session not found")

// post forwards a host's POST.
func (p *Proxy) post(w http.ResponseWriter, r *http.Request) {
	began := time.Now()
	body, err := readBody(r, p.opts.MaxRequest)
	if err != nil {
		rpcError(w, http.StatusRequestEntityTooLarge, -32600, "watchdog proxy: "+err.Error())
		return
	}
	if p.bridgePost(w, r, body, began) { // bridge.go: modern-only servers
		return
	}
	hostID := r.Header.Get(mcphttp.HeaderSessionID)
	switch {
	case hostID == "" && methodOf(body) == "initialize":
		p.initialize(w, r, body)
	case hostID == "":
		p.pass(w, r, body)
	default:
		s := p.session(w, r)
		if s != nil {
			p.call(w, r, body, s, began)
		} else if p.isStateless() {
			p.pass(w, r, body)
		}
	}
}

// session finds the host's session. An id the proxy does not know is
// answered 404 as a server would (the host starts over), unless the server
// has no sessions at all: then the header is the host's legacy habit,
// dropped and counted, and nil is returned for the caller to pass on.
func (p *Proxy) session(w http.ResponseWriter, r *http.Request) *session {
	id := r.Header.Get(mcphttp.HeaderSessionID)
	s := p.sessions.get(id)
	if s == nil && !p.isStateless() && isHostID(id) && !p.sessions.wasEnded(id) {
		s = p.adopt(r.Context(), id, r.Header)
	}
	if s != nil {
		p.touch(s, r.Header)
		return s
	}
	if p.isStateless() {
		r.Header.Del(mcphttp.HeaderSessionID)
		p.opts.OnSighting(Sighting{Kind: EvLegacyHeaderDropped, Server: p.opts.Server, Time: p.opts.Now(),
			Detail: "the host sent a session header to a server without sessions; the proxy dropped it"})
		return nil
	}
	rpcError(w, http.StatusNotFound, -32001, errNoSession.Error())
	return nil
}

// adopt takes on a session id of the proxy's own shape that it does not
// know and no host ended: one it gave out before its state file was lost.
// Answering 404 would strand most hosts (they keep the dead id), so the
// host is served on a new upstream session opened with an initialize of
// the proxy's own (no client capabilities: the server will not ask this
// host to sample or elicit). The log says so.
func (p *Proxy) adopt(ctx context.Context, id string, h http.Header) *session {
	s := &session{hostID: id, init: adoptedInit(h.Get(mcphttp.HeaderProtocolVersion)), client: adoptedClient, last: p.opts.Now()}
	p.letGo(ctx, p.sessions.add(s))
	p.log.Warn("a host holds a session this proxy no longer knows (its state was lost); serving it on a new session", "session", mask.ID(id))
	return s
}

// adoptedClient is the clientInfo.name of an adopted session's initialize.
const adoptedClient = "mcp-watchdog-proxy (adopted session)"

// adoptedInit is the initialize of the proxy's own for an adopted session,
// at version ("": 2025-06-18).
func adoptedInit(version string) json.RawMessage {
	if version == "" {
		version = "2025-06-18"
	}
	init, _ := json.Marshal(map[string]any{"protocolVersion": version, "capabilities": map[string]any{},
		"clientInfo": map[string]string{"name": adoptedClient, "version": "1"}})
	return init
}

// isHostID: id has the shape of the ids the proxy gives out.
func isHostID(id string) bool {
	if len(id) != 32 {
		return false
	}
	_, err := hex.DecodeString(id)
	return err == nil && strings.ToLower(id) == id
}

// sessionOrPass is the session of a GET or DELETE; nil when the request
// was answered already: passed on as it is (no session header, or a
// server without sessions) or refused (an unknown id).
func (p *Proxy) sessionOrPass(w http.ResponseWriter, r *http.Request) *session {
	if r.Header.Get(mcphttp.HeaderSessionID) != "" {
		if s := p.session(w, r); s != nil || !p.isStateless() {
			return s
		}
	}
	p.pass(w, r, nil)
	return nil
}

// pass forwards a request that belongs to no session of the proxy's.
func (p *Proxy) pass(w http.ResponseWriter, r *http.Request, body []byte) {
	p.passFlow(r.Context(), &httpReq{p: p, w: w, r: r, b: body, start: time.Now()})
}

// initialize forwards a host's initialize (initFlow).
func (p *Proxy) initialize(w http.ResponseWriter, r *http.Request, body []byte) {
	p.initFlow(r.Context(), &httpReq{p: p, w: w, r: r, b: body, start: time.Now()})
}

// call forwards a request on the host's session (callFlow).
func (p *Proxy) call(w http.ResponseWriter, r *http.Request, body []byte, s *session, began time.Time) {
	p.callFlow(r.Context(), &httpReq{p: p, w: w, r: r, b: body, start: began}, s)
}

// current is the session's upstream id, and the one it lost while no call
// was under way ("" when none).
func (p *Proxy) current(s *session) (up, lost string) {
	p.sessions.with(func() { up, lost = s.upstream, s.lost })
	return up, lost
}

func (p *Proxy) recovered(s *session, old, now string, began time.Time, detail string) {
	p.opts.OnSighting(Sighting{Kind: EvRecovered, Server: p.opts.Server, Time: p.opts.Now(), HostSession: s.hostID,
		Upstream: now, OldUpstream: old, Client: s.client, Took: time.Since(began), Detail: detail})
}

func (p *Proxy) failed(s *session, old string, err error) {
	p.log.Warn("the server lost a host's session and a new one could not be opened", "err", err)
	p.opts.OnSighting(Sighting{Kind: EvRecoverFailed, Server: p.opts.Server, Time: p.opts.Now(), HostSession: s.hostID,
		OldUpstream: old, Client: s.client, Detail: "the server lost the host's session and a new one could not be opened: " + err.Error()})
}
