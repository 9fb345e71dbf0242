// Package demoserver runs a real MCP server (the official Go SDK's
// Streamable HTTP handler) that behaves like Nowledge Mem as far as the
// watchdog can see: idle sessions expire, unknown session ids get 404
// "session not found", live sessions are mirrored into a JSON session store
// and the lifecycle is written to a log file in the server's own words.
//
// It exists for the watchdog's end-to-end tests and for `watchdog demo`.
// Everything it reports about sessions (SessionIDs, Ended) is ground truth
// taken from the SDK, so tests can compare the watchdog's view against it.
//
// How sessions are observed, given that the SDK has no public
// session-closed hook (ServerSessionOptions.onClose is unexported):
//   - created: a receiving middleware sees a successful "initialize" and
//     reads ServerSession.ID() and the client name from InitializeParams;
//   - activity: an HTTP middleware reads the Mcp-Session-Id header of every
//     POST, the same requests that pause and restart the SDK's idle timer
//     (a standalone GET stream does not keep a session alive);
//   - ended: one goroutine per session blocks in ServerSession.Wait, which
//     returns once the SDK closed the session (idle timer, DELETE, or us).
//     The reason is what we marked before closing (DELETE seen, ForgetAll,
//     Close); an unmarked end with an idle timeout set is the idle timer.
//
// The store file is rewritten (temp file, fsync, rename) at most every
// StoreInterval, coalescing changes, and synchronously by Start, ForgetAll
// and Close. Each log line opens, appends and closes the log file, so both
// files may be rotated or rewritten from outside while the server runs.
// Options.OnEvent reports every start and end as it is recorded, and every
// echo call as it runs.
package demoserver
