package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"mime"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/mcphttp"
)

// Attaching a host to a server that is down. A host that starts while its
// server does not answer at all (the connection refused or unreachable: no
// byte of the request left; a server that answers with an HTTP error is
// up, and its answer goes to the host) is answered from the last-known
// server (known.go), in the host's era:
//
//   - a legacy initialize gets the kept initialize result (the version the
//     host asked for when the server offered one as new), and a session id
//     of the proxy's own whose upstream session is not open yet (waiting);
//     for a modern-only server, of which no initialize is kept, one made
//     from the kept discover result, on a bridged session (bridge.go);
//     a 2026-07-28 server/discover gets the kept discover result;
//   - its list requests (first pages) get the kept lists; its
//     notifications are taken (the replay sends initialized); a ping is
//     answered by the proxy, which holds the host's session;
//   - any other request waits for the server, at most Options.CallWait,
//     then fails with a JSON-RPC error for its id that names the server.
//
// The upstream session is opened as soon as the server answers: at each
// host request, and, while a host waits (a request held, a GET stream
// waiting), by probing with capped backoff and jitter (upProbeFirst to
// upProbeMost). It is opened by replace (replay.go), as a lost session is
// replaced: the host's initialize and notifications/initialized, each
// sent once. Where the lists the host was answered from the last-known
// server differ from the server's now, the host is told (list_changed) on
// its GET stream, or on the next one it opens; its next list request goes
// to the server. Nothing a host sent is sent twice: a request is sent again
// only after a connection that never was made.
//
// With nothing known of the server, a host's initialize (or server/discover)
// waits for it, at most Options.InitWait, then gets an error that names it.

// Waits and probes for a server that is down.
const (
	// DefaultCallWait bounds how long a host's request waits for a
	// server that is down, while the host holds a session answered from
	// the last-known server, or a bridged one (bridge.go): below hosts'
	// own request timeouts (60 s in the TypeScript SDK, 30 s in some
	// hosts' tool calls), so the host hears why rather than a timeout of
	// its own.
	DefaultCallWait = 10 * time.Second
	// DefaultInitWait bounds how long a host's initialize waits for a
	// server that is down and that the proxy knows nothing of: below
	// hosts' own connect timeouts (30 s and more).
	DefaultInitWait = 20 * time.Second
	// upProbeFirst is the first pause between probes of a server that is
	// down, doubling to upProbeMost; each pause is drawn ±upProbeJitter
	// around its value, so hosts waiting together do not knock together.
	// A probe is only ever made while a host waits on it, and a refused
	// connection costs next to nothing, so the pause stays short: a host
	// is attached within a quarter second of its server coming up. (At a
	// 2 s cap, Claude Code, which does not wait for its servers before its
	// first model request, was attached 1.3 s after the server was up and
	// its first turn went without the server's tools.)
	upProbeFirst  = 50 * time.Millisecond
	upProbeMost   = 250 * time.Millisecond
	upProbeJitter = 0.2
)

// errNotUp: the server did not answer within the wait.
var errNotUp = errors.New("not up yet")

// untilUp calls try after a pause, again and again with pauses that grow,
// while its error says the server was not reached (no byte left: nothing
// ran), until it returns nil or another error, the host goes away, or
// within passes (0: no bound): then errNotUp, wrapping the last error.
func untilUp(ctx context.Context, within time.Duration, try func() error) error {
	var deadline time.Time
	if within > 0 {
		deadline = time.Now().Add(within)
	}
	wait := upProbeFirst
	for {
		pause := time.Duration(float64(wait) * (1 - upProbeJitter + 2*upProbeJitter*rand.Float64()))
		if !deadline.IsZero() {
			left := time.Until(deadline)
			if left <= 0 {
				return errNotUp
			}
			pause = min(pause, left)
		}
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		err := try()
		if err == nil || !refusedBeforeSending(err) {
			return err
		}
		wait = min(2*wait, upProbeMost)
	}
}

// serverName names the server in what hosts read.
func (p *Proxy) serverName() string {
	if p.opts.Server != "" {
		return p.opts.Server
	}
	return "the server"
}

// notUpBody is the JSON-RPC error for id of a request that waited for the
// server in vain.
func (p *Proxy) notUpBody(id json.RawMessage, waited time.Duration) []byte {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	b, _ := marshalPlain(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": -32603,
		"message": fmt.Sprintf("watchdog proxy: the MCP server %s is not up yet (nothing answered at its address for %v); try again once it is up",
			p.serverName(), waited.Round(time.Millisecond))}})
	return append(b, '\n')
}

// notUp tells the journal that a host's request waited for the server in
// vain.
func (p *Proxy) notUp(s *session, method string, waited time.Duration) {
	ev := Sighting{Kind: EvNotUp, Server: p.opts.Server, Time: p.opts.Now(), Took: waited,
		Detail: fmt.Sprintf("a host's %s waited %v for %s, which was not up; the host got an error naming it", method, waited.Round(time.Millisecond), p.serverName())}
	if s != nil {
		ev.HostSession, ev.Client = s.hostID, s.client
	}
	p.opts.OnSighting(ev)
}

// whenKnown says when the knowledge is from, as a sentence ends it.
func whenKnown(seen, now time.Time) string {
	if seen.YearDay() == now.YearDay() && seen.Year() == now.Year() {
		return seen.Format("15:04")
	}
	return seen.Format("15:04 on 2 Jan 2006")
}

// attachInit answers a host's initialize, which could not reach the
// server, from the last-known server: its kept initialize, or, of a
// modern-only server, its kept discover, bridged. False when it knows
// neither.
func (p *Proxy) attachInit(ctx context.Context, q hostReq) bool {
	kr, ok := p.known.get("initialize")
	if !ok { // none kept of a modern-only server, which refuses it
		return p.attachBridged(ctx, q) // bridge.go
	}
	init := paramsOf(q.body())
	result := attachedResult(kr.Result, hostInfoOf(init).version)
	answer, err := rpcResult(idOf(q.body()), result)
	if err != nil {
		return false
	}
	now := p.opts.Now()
	ev := Sighting{Kind: EvAttached, Server: p.opts.Server, Time: now, Known: kr.Seen, Client: clientName(init),
		Detail: fmt.Sprintf("a host started while %s was down; the proxy attached it from what %s said at %s", p.serverName(), p.serverName(), whenKnown(kr.Seen, now))}
	if p.known.sessionless() { // the server issues no sessions: nor does the proxy in its place
		p.opts.OnSighting(ev)
		q.answer(http.StatusOK, "", answer)
		return true
	}
	protocol, caps := parseInit(result)
	s := &session{hostID: newHostID(), init: init, client: ev.Client, protocol: protocol, caps: caps, last: now,
		header: keptHeader(q.header()), waiting: true}
	evicted := p.sessions.add(s)
	ev.HostSession = s.hostID
	p.opts.OnSighting(ev)
	q.answer(http.StatusOK, s.hostID, answer)
	p.letGo(ctx, evicted)
	return true
}

// attachedResult is the kept initialize result for a host that asked for
// version: the version the host asked for when it is a legacy one no newer
// than the server's (a server offering a version offers those before it),
// else the server's.
func attachedResult(kept json.RawMessage, asked string) json.RawMessage {
	var r map[string]json.RawMessage
	if json.Unmarshal(kept, &r) != nil {
		return kept
	}
	var theirs string
	_ = json.Unmarshal(r["protocolVersion"], &theirs)
	if asked == "" || asked == theirs || !slices.Contains(legacyVersions, asked) || (theirs != "" && asked > theirs) {
		return kept
	}
	r["protocolVersion"] = quoted(asked)
	out, err := marshalPlain(r)
	if err != nil {
		return kept
	}
	return out
}

// attachedCall serves a request on a session answered from the last-known
// server, whose upstream session is not open yet.
func (p *Proxy) attachedCall(ctx context.Context, q hostReq, s *session) {
	body := q.body()
	err := p.openAttached(ctx, s, q.header()) // at each host request
	if err == nil {
		if methodOf(body) == "notifications/initialized" { // late: the replay sent it already
			q.accepted()
			return
		}
		p.callFlow(ctx, q, s)
		return
	}
	if !refusedBeforeSending(err) { // the server answered, and not with a session
		q.fail(err)
		return
	}
	method := methodOf(body)
	switch {
	case isResponse(body) || strings.HasPrefix(method, "notifications/"):
		// Nothing the server is owed: it has not asked the host anything,
		// and the replay sends notifications/initialized itself.
		q.accepted()
		return
	case method == "ping": // the proxy holds the host's session
		if b, err := rpcResult(idOf(body), map[string]any{}); err == nil {
			q.answer(http.StatusOK, s.hostID, b)
			return
		}
	}
	if m := keptListMethod(body); m != "" {
		if kr, ok := p.known.get(m); ok {
			if b, err := rpcResult(idOf(body), kr.Result); err == nil {
				p.sessions.with(func() {
					if s.served == nil {
						s.served = map[string]json.RawMessage{}
					}
					s.served[m] = kr.Result
				})
				q.answer(http.StatusOK, s.hostID, b)
				return
			}
		}
	}
	notUp, err := p.waitUp(ctx, q, s, method, p.opts.CallWait, func() error { return p.openAttached(ctx, s, q.header()) })
	switch {
	case notUp:
	case err != nil:
		q.fail(err)
	default:
		p.callFlow(ctx, q, s)
	}
}

// waitUp waits for the server that a host's request (method, on the
// host's session s; nil: none) found down: try, which sends the request or
// opens what it needs, is called again as untilUp calls it, at most wait
// on. The proxy's one bound and word for a request held while the server
// is down, whichever era its host speaks. notUp: the server did not come
// up in time; the host was answered an error for its request's id that
// names the server, and the journal told.
func (p *Proxy) waitUp(ctx context.Context, q hostReq, s *session, method string, wait time.Duration, try func() error) (notUp bool, err error) {
	err = untilUp(ctx, wait, try)
	if !errors.Is(err, errNotUp) {
		return false, err
	}
	hostID := ""
	if s != nil {
		hostID = s.hostID
	}
	p.notUp(s, method, wait)
	// A JSON-RPC error for its id, which clients show as it is (a 502's
	// body some do not show).
	q.answer(http.StatusOK, hostID, p.notUpBody(idOf(q.body()), wait))
	return true, nil
}

// openAttached opens the upstream session of s, answered from the
// last-known server (replace; nil when another request opened it).
func (p *Proxy) openAttached(ctx context.Context, s *session, h http.Header) error {
	_, err := p.replace(ctx, s, "", h)
	return err
}

// attachedStream serves a host's GET on a session whose upstream is not
// open yet. The host hears 200 at once (some clients, the Go SDK's, wait
// for their stream's answer before they call anything) and holds a stream
// of the proxy's own, which carries its notifications (list_changed); it
// waits for the server (probing while it does), then carries the
// server's events from its stream on the new session. A server that
// offers no stream leaves the proxy's open until the host goes.
func (p *Proxy) attachedStream(w http.ResponseWriter, r *http.Request, s *session) {
	began := time.Now()
	st, closeStream := p.openStream(w, s, func(h http.Header) {
		h.Set("Content-Type", "text/event-stream")
		h.Set("Cache-Control", "no-cache")
	})
	defer closeStream()
	ctx := r.Context()
	err := p.openAttached(ctx, s, r.Header)
	if err != nil && refusedBeforeSending(err) {
		err = untilUp(ctx, 0, func() error { return p.openAttached(ctx, s, r.Header) })
	}
	if err != nil {
		return // the host went, or the server answered but opened no session: the host's stream ends, and it opens another
	}
	up, _ := p.current(s)
	a, err := p.getOn(r, s, up, began)
	if err != nil {
		return
	}
	defer a.resp.Body.Close()
	if mt, _, _ := mime.ParseMediaType(a.resp.Header.Get("Content-Type")); a.resp.StatusCode != http.StatusOK || mt != "text/event-stream" {
		<-ctx.Done() // no stream upstream (405): the proxy's stays the host's
		return
	}
	p.pump(st, a.resp.Body)
}

// attachedUp is replace's end for a session that was answered from the
// last-known server: the server came up. The lists the host was given
// from the last-known server are read on the new session up (c, at
// protocol), kept as the server's latest, and where they differ, the
// host is told to read them again.
func (p *Proxy) attachedUp(ctx context.Context, s *session, c *mcphttp.Client, up, protocol string) {
	var served map[string]json.RawMessage
	p.sessions.with(func() { served, s.served = s.served, nil })
	var notes []string
	for _, m := range keptMethods {
		had, ok := served[m]
		if !ok {
			continue
		}
		resp, err := c.Do(ctx, mcphttp.Request{Method: m, SessionID: up, ProtocolVersion: protocol})
		fresh := json.RawMessage(nil)
		if err == nil && resp.Status/100 == 2 && resp.RPC != nil && resp.RPC.Error == nil {
			fresh = resp.RPC.Result
			p.known.see(m, fresh, p.opts.Now())
		}
		if fresh == nil || !sameJSON(had, fresh) { // unread: the host reads it again itself
			if note := listChangedOf(m); !slices.Contains(notes, note) {
				notes = append(notes, note)
			}
		}
	}
	detail := fmt.Sprintf("%s came up; the proxy opened the session of a host that had attached while it was down", p.serverName())
	if len(notes) > 0 {
		detail += ", and told the host its lists changed (" + strings.Join(notes, ", ") + ")"
	}
	p.opts.OnSighting(Sighting{Kind: EvAttachedUp, Server: p.opts.Server, Time: p.opts.Now(), HostSession: s.hostID,
		Upstream: up, Client: s.client, Detail: detail})
	p.tellNotes(s, notes)
}

// listChangedOf is the notification that tells a host to read list m again.
func listChangedOf(m string) string {
	switch m {
	case "prompts/list":
		return "notifications/prompts/list_changed"
	case "resources/list", "resources/templates/list":
		return "notifications/resources/list_changed"
	}
	return "notifications/tools/list_changed"
}

// sameJSON reports whether a and b are the same JSON, spacing aside.
func sameJSON(a, b json.RawMessage) bool {
	var ca, cb bytes.Buffer
	if json.Compact(&ca, a) != nil || json.Compact(&cb, b) != nil {
		return false
	}
	return bytes.Equal(ca.Bytes(), cb.Bytes())
}

// tellNotes sends notes on the host's GET streams, or keeps them for the
// next one it opens.
func (p *Proxy) tellNotes(s *session, notes []string) {
	if len(notes) == 0 {
		return
	}
	var open []*stream
	p.sessions.with(func() {
		if len(s.streams) == 0 {
			s.pending = append(s.pending, notes...)
			return
		}
		open = slices.Clone(s.streams)
	})
	for _, st := range open {
		st.notify(notes)
	}
}

// answerKnown answers a request without a session that could not reach
// the server (a 2026-07-28 host's, or one for a server without sessions)
// from the last-known server: server/discover and the lists' first pages.
// False: nothing kept for it.
func (p *Proxy) answerKnown(q hostReq) bool {
	body := q.body()
	m := keptListMethod(body)
	if m == "" && methodOf(body) == "server/discover" {
		m = "server/discover"
	}
	if m == "" {
		return false
	}
	kr, ok := p.known.get(m)
	if !ok {
		return false
	}
	b, err := rpcResult(idOf(body), kr.Result)
	if err != nil {
		return false
	}
	if m == "server/discover" {
		now := p.opts.Now()
		p.opts.OnSighting(Sighting{Kind: EvAttached, Server: p.opts.Server, Time: now, Known: kr.Seen, Client: clientName(paramsOf(body)),
			Detail: fmt.Sprintf("a host's server/discover found %s down; the proxy answered it from what %s said at %s",
				p.serverName(), p.serverName(), whenKnown(kr.Seen, now))})
	}
	q.answer(http.StatusOK, "", b)
	return true
}

// passWhenDown serves a request without a session that could not reach the
// server: from the last-known server where it can, else it waits for the
// server (Options.InitWait for a first contact, Options.CallWait for the
// rest) and goes once it answers. nil, nil: answered here.
func (p *Proxy) passWhenDown(ctx context.Context, q hostReq) (upReply, error) {
	if p.answerKnown(q) {
		return nil, nil
	}
	method := methodOf(q.body())
	wait := p.opts.CallWait
	if method == "server/discover" || method == "initialize" {
		wait = p.opts.InitWait
		p.awaiting(method, wait)
	}
	return p.exchangeWhenUp(ctx, q, method, wait)
}

// awaiting tells the journal that a host's first contact waits for a
// server the proxy knows nothing of.
func (p *Proxy) awaiting(method string, wait time.Duration) {
	p.opts.OnSighting(Sighting{Kind: EvAwaiting, Server: p.opts.Server, Time: p.opts.Now(),
		Detail: fmt.Sprintf("a host's %s found %s down and nothing known of it; it waits up to %v for the server", method, p.serverName(), wait)})
}

// exchangeWhenUp sends a request without a session, which found the
// server down, once the server answers, waiting at most wait. nil, nil:
// the host was answered an error naming the server.
func (p *Proxy) exchangeWhenUp(ctx context.Context, q hostReq, method string, wait time.Duration) (upReply, error) {
	var a upReply
	notUp, err := p.waitUp(ctx, q, nil, method, wait, func() error {
		q.resend()
		var err error
		a, err = q.exchange(ctx, "", "")
		return err
	})
	if notUp {
		return nil, nil
	}
	return a, err
}

// currentOrWaiting is current, and whether s was answered from the
// last-known server and its upstream session is not open yet.
func (p *Proxy) currentOrWaiting(s *session) (up, lost string, waiting bool) {
	p.sessions.with(func() { up, lost, waiting = s.upstream, s.lost, s.waiting })
	return up, lost, waiting
}
