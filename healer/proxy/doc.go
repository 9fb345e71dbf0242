// Package proxy is a session-keeping MCP proxy on loopback: it heals hosts
// that cannot be patched.
//
// A host points at http://<listen>/<secret>/mcp instead of the server's
// URL. The proxy serves its owner only: on Linux a connection of another
// local user is closed before a byte of it is read (internal/peer); the
// secret path (LoadSecret) keeps out whoever does not know it, and is all
// that does on macOS, which names no TCP peer's owner; a request with a
// Host that is not loopback, or an Origin but the proxy's own, is a web
// page's and gets 403. The configured headers go only
// with requests that passed all three. The
// proxy forwards every request, answer (JSON or SSE, streamed as it comes),
// GET stream and DELETE, with the host's headers, to the server. It gives
// the host a session id of its own and maps it to the server's. When the
// server answers a POST with a session-lost answer (mcphttp.Judge: 404
// unless -32601, the 400 quirk), nothing ran: the server refused the
// request at its session lookup. The proxy then replays the host's
// initialize and notifications/initialized on a new upstream session,
// sends the failed request once more and answers the host with that
// answer, so the host never sees the loss. Nothing else is ever retried:
// timeouts, 5xx, connection errors and tool errors reach the host as they
// came.
//
// After a new upstream session the host is told, on its GET stream,
// that the lists it read may have changed (tools, and resources and
// prompts when the server offers them). The mapping and the host's
// initialize are kept in a 0600 state file, so a daemon restart keeps
// them. Keep-warm pings at half the idle timeout, and sessions of a host
// that is gone are let go upstream with DELETE.
//
// The host's GET stream is a hint, never a verdict: a GET answered 404 or
// with the 400 quirk may come from a server that refuses GET on a live
// session (the GET-404 hazard), so a ping (a POST) must confirm the loss
// before the session is replaced, and the host's stream is then opened on
// the new upstream session, never on one already replaced. A GET that
// cannot reach the server waits for it rather than failing the host.
//
// Bounds against hostile or broken peers on loopback: at most MaxPending
// connections waiting for their headers (the oldest closed first), 64 KiB
// of headers (431), MaxRequest of body (413, refused unread), MaxSessions
// host sessions (the least recently used one without a stream is let go
// with DELETE), and an AnswerTimeout after which a call that got no
// answer is answered 504, once, unretried.
//
// Every call of every adopted host goes through it, so a call costs it
// about what a byte relay costs (make bench-proxy measures it beside
// nginx and HAProxy). The common request, a POST on a session or a
// host's initialize, takes the fast path (fast.go): the proxy's own
// HTTP/1.1 loop, one goroutine per host connection, reads only the
// headers it acts on and passes the rest to a kept upstream connection of
// its own byte for byte, the session header rewritten; the answer is
// relayed as it comes, its framing untouched, large bodies spliced
// between the sockets by the kernel. As nginx, it reads a socket only when
// something can have come: a request's write and an answer's last write
// are made within the wait for what comes next (sockio_linux.go), about
// five system calls a call, as nginx makes. The rules are the same
// functions either way. A request the fast path does not take (servesFast,
// and the reasons in fasthead.go: a GET stream, a DELETE, a chunked upload,
// an unusual header, a server without sessions or over https) gives its
// connection to net/http, the general path, for good; one without a body
// (a GET stream, a DELETE, a host's OAuth probe) is only lent to it, and
// the connection's next request is the fast path's again (fastlend.go).
// Paths counts both.
//
// A host that starts while its server is down (its connections refused)
// is answered from the last-known server (known.go, attach.go): the
// server's initialize, server/discover and list results as last seen
// through the proxy, kept in Options.KnownFile. Its session's upstream is
// opened by the same replay as a lost session's once the server answers,
// the host is told where its lists changed, and a call before that waits
// Options.CallWait, then fails with an error naming the server. A legacy
// host of a modern-only server (which refuses initialize: none is kept)
// is answered from the kept server/discover, at once, and bridged: its
// lists are answered from the kept lists, and its calls wait
// Options.CallWait likewise. With nothing known, an initialize waits
// Options.InitWait for the server. A 2026-07-28 host's server/discover to
// a server known only by its legacy initialize (one that refuses
// discover, as the TypeScript SDK 1.x does) is refused at once in its
// place, so the host initializes and is attached (legacydown.go).
//
// A 2026-07-28 server has no session to keep: its traffic passes as it
// is, and a legacy session header a host sends it is dropped and counted.
// A server that serves only 2026-07-28 (modern-only) refuses legacy
// hosts, so the proxy bridges them (bridge.go): it answers their
// initialize from server/discover and sends their other requests on in
// the 2026-07-28 shape, each once.
package proxy
