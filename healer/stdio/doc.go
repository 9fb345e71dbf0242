// Package stdio is `watchdog stdio`: what a host runs in place of a stdio
// MCP server, so that a server that dies is started again under the host
// instead of leaving every tool of it failing until the host restarts
// (most hosts never start a dead stdio server again).
//
// Run starts the server as its child, in a process group of its own that
// dies with the supervisor (Linux: the parent-death signal), and relays
// the pipes a message (a line) at a time, byte for byte: a message up to
// Limits.Whole is written whole, a longer one in pieces as it arrives, so
// memory stays bounded whatever a server writes. A line on the server's
// stdout that is no JSON-RPC is moved to stderr, where hosts keep a
// server's log. Of each message only the top-level id and method are
// read (scan, a byte at a time); ids are never rewritten, except those of
// the supervisor's own requests.
//
// When the server dies while the host is there:
//   - a call it read and may have acted on gets a JSON-RPC error for its
//     id (ErrorCode) saying the server exited while handling it and it may
//     or may not have run: never dropped, never sent again;
//   - a call written after what it read (it never saw it) and a request
//     that changes nothing (the handshakes, ping, the lists) go to the
//     next run;
//   - the next run is started (at once, then with backoff), the host's
//     initialize and initialized replayed to it, the answer kept from the
//     host; where it declares listChanged the host is told to list again,
//     and a server that came back as another version says so;
//   - messages that arrive meanwhile wait for it (Limits.RestartWait);
//   - CrashLoop exits within CrashWindow stop the restarts; every request
//     then gets an error naming the server and its last stderr line.
//
// A request unanswered for HangAfter gets the server a ping; unanswered
// too, the server is said to hang (killed and started again only with
// Options.RestartHung). When the host closes its stdin (or dies) the
// server's stdin is closed, then SIGTERM, then SIGKILL, each after Grace.
// What happens is told to Options.Report; Link carries it to the daemon.
package stdio
