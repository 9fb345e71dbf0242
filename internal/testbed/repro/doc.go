// Package repro reproduces dsh-mcp-client's session-loss bug and proves the
// client patch fixes it, offline, on real software: a real stateful MCP
// server (the Go SDK's StreamableHTTPHandler via internal/demoserver, or the
// TypeScript SDK's stateful transport via testdata/tsservers/server.mjs)
// loses the session mid-run, and a host process (testdata/dshclient/host.mjs)
// running the client's connection supervisor (the stand-in in
// testdata/dshclient/lib, or the real npm client in testdata/dshclient/real)
// makes the tool calls.
//
// Unpatched, the first call after the loss fails with 404 and every later
// call fails the same way: STUCK. With patch v1 (Options.NoRetry), the
// failed call takes the generation down and the supervisor reconnects: a
// call made shortly after succeeds: RECOVERED. With v2 (the default), that
// first call is itself sent once more on the new session and succeeds. With the recovery trigger (the
// watchdog's heal step, written here by Run itself when it sees the loss),
// even the first call after the loss succeeds.
package repro
