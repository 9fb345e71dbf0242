package proxy

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/mcpwatchdog/watchdog/internal/mcphttp"
)

// replace opens a new upstream session for s in place of lost (the one a
// call met lost, or "" when s has none), replaying the host's initialize
// and notifications/initialized with the headers of the call at hand, so
// the server sees the same client with the same credentials. Calls that
// met the same lost session wait for one replay and share it.
func (p *Proxy) replace(ctx context.Context, s *session, lost string, h http.Header) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if cur, _ := p.current(s); cur != "" && cur != lost {
		return cur, nil // another call replaced it meanwhile
	}
	c, err := p.upstreamClient(h)
	if err != nil {
		return "", err
	}
	resp, err := c.Do(ctx, mcphttp.Request{Method: "initialize", Params: s.init})
	if err != nil {
		return "", fmt.Errorf("replaying initialize: %w", err)
	}
	if resp.Status/100 != 2 || resp.SessionID == "" || resp.RPC == nil || resp.RPC.Error != nil {
		return "", fmt.Errorf("the server answered the replayed initialize with %d and no new session: %s",
			resp.Status, mcphttp.Judge(resp, nil).Reason)
	}
	protocol, caps := parseInit(resp.RPC.Result)
	if protocol == "" {
		protocol = s.protocol
	}
	ack, err := c.Do(ctx, mcphttp.Request{Method: "notifications/initialized", SessionID: resp.SessionID, ProtocolVersion: protocol})
	if err != nil || ack.Status/100 != 2 {
		return "", fmt.Errorf("the server refused notifications/initialized on the new session (%d): %v", ack.Status, err)
	}
	var attached bool
	p.sessions.with(func() {
		s.upstream, s.lost, s.protocol, s.caps = resp.SessionID, "", protocol, caps
		attached, s.waiting = s.waiting, false
	})
	p.sessions.save()
	p.known.see("initialize", resp.RPC.Result, p.opts.Now())
	p.opts.OnSighting(Sighting{Kind: EvUpstream, Server: p.opts.Server, Time: p.opts.Now(), HostSession: s.hostID,
		Upstream: resp.SessionID, OldUpstream: lost, Client: s.client, Detail: "the proxy opened a new upstream session for a host"})
	if attached { // the server came up for a host attached from the last-known server
		p.attachedUp(ctx, s, c, resp.SessionID, protocol)
	} else {
		p.tellLists(s)
	}
	return resp.SessionID, nil
}

// upstreamClient talks to the server for the proxy itself (replays, era
// probes) with the host's credentials (h) or the config's.
func (p *Proxy) upstreamClient(h http.Header) (*mcphttp.Client, error) {
	return mcphttp.New(mcphttp.Options{URL: p.opts.Upstream, Headers: p.replayHeaders(h), AllowInsecure: p.opts.AllowInsecure,
		HTTPClient: p.hc, MaxBody: maxInitAnswer})
}

// replayHeaders are the host's headers that the proxy's own requests carry
// (Authorization and the like), and the config's where the host has none.
// mcphttp sets the protocol's own headers itself.
func (p *Proxy) replayHeaders(h http.Header) map[string]string {
	out := map[string]string{}
	for k, v := range p.opts.Headers {
		out[http.CanonicalHeaderKey(k)] = v
	}
	eachReplayed(h, func(k string, vs []string) { out[k] = strings.Join(vs, ", ") })
	return out
}

// eachReplayed calls f with each of h's headers that the proxy's own
// requests carry: not of one connection, not the protocol's own.
func eachReplayed(h http.Header, f func(k string, vs []string)) {
	conn := h.Values("Connection")
	for k, vs := range h {
		ck := http.CanonicalHeaderKey(k)
		switch ck {
		case "Accept", "Content-Type", "Host", mcphttp.HeaderProtocolVersion, mcphttp.HeaderMethod, "Origin", "User-Agent", mcphttp.HeaderSessionID:
			continue
		}
		if !isHopByHop(ck) && !namedIn(conn, ck) {
			f(ck, vs)
		}
	}
}

// namedIn reports whether a Connection header's values name k.
func namedIn(conn []string, k string) bool {
	for _, v := range conn {
		for f := range strings.SplitSeq(v, ",") {
			if http.CanonicalHeaderKey(strings.TrimSpace(f)) == k {
				return true
			}
		}
	}
	return false
}

// keptHeader is what a session keeps of the host's headers: those its
// replays and pings carry (eachReplayed), nil when none (most hosts
// without credentials). The rest differs per call or is the protocol's.
func keptHeader(h http.Header) http.Header {
	var out http.Header
	eachReplayed(h, func(k string, vs []string) {
		if out == nil {
			out = http.Header{}
		}
		out[k] = slices.Clone(vs)
	})
	return out
}

// sameKept reports whether keptHeader(h) would equal kept, without making it.
func sameKept(kept, h http.Header) bool {
	n, same := 0, true
	eachReplayed(h, func(k string, vs []string) {
		n++
		same = same && slices.Equal(vs, kept[k])
	})
	return same && n == len(kept)
}
