package proxy

import (
	"bytes"
	"context"

	"github.com/mcpwatchdog/watchdog/internal/mcphttp"
)

// The era bridge (bridge.go) lives on the general path: a modern-only
// server's requests never take the fast path (fastWhy). The fast path
// only has to notice when a request is the bridge's before it reads it
// (bridgeAhead), or, when the server changed eras under a kept
// connection, from the server's refusal (turnedModernOnly); then it gives
// the request back, unread, to the general path, which serves it over
// the bridge. Nothing ran on the server: a modern-only refusal runs
// nothing.

// bridgeAhead learns the server's era where the general path would, before
// the request is read: for a legacy request without a session (a host's
// initialize, at the first of the run) and for a session id the proxy
// does not know. It reports whether the request is the bridge's.
func (fc *fastConn) bridgeAhead(ctx context.Context, h *reqHead, s *session) bool {
	p := fc.s.p
	if s != nil || p.eras.known.Load() {
		return false
	}
	hdr := h.header()
	if h.session == nil && mcphttp.IsModernVersion(hdr.Get(mcphttp.HeaderProtocolVersion)) {
		return false // a 2026-07-28 host's request passes as it is
	}
	return p.knownEra(ctx, hdr, nil) == mcphttp.EraModernOnly
}

// giveBack keeps r unread for the general path: in the read buffer, or,
// for a request too large for it, in fc.replay, which give puts first.
func (fc *fastConn) giveBack(r *fastReq) {
	if r.took > 0 {
		r.took = 0 // done leaves it in the read buffer
		return
	}
	fc.replay = bytes.Clone(fc.spill[:len(r.h.raw)+len(r.body)])
}
