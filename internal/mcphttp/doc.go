// Package mcphttp is the watchdog's one small MCP Streamable HTTP client:
// the prober and the healer both send their pings, DELETEs and probe
// requests through it.
//
// It is deliberately not a full MCP client. It sends one JSON-RPC message a
// request, reads the answer (JSON or SSE) only until the response carrying
// its own id, and hands back the HTTP status, headers and that message so the
// caller can classify the answer with [Judge].
//
// Guard rails, because session ids are credentials:
//   - plain http is refused to any host that is not loopback unless
//     [Options.AllowInsecure] is set ([ErrInsecure]);
//   - redirects are never followed, so a session id (or an Authorization
//     header) cannot travel to another origin; a 3xx is returned as is;
//   - request ids are "watchdog-<n>" strings, so they never collide with the
//     numeric ids of the host whose session the watchdog borrows.
//
// JSON-RPC messages are decoded into small local structs ([RPCMessage],
// [RPCError]) rather than the SDK's jsonrpc types: those hide the id behind
// an opaque type and the error behind the error interface, and the watchdog
// needs to see both raw (to match its own id, and to read error codes from
// servers written in any language). The standard codes come from the SDK's
// jsonrpc package.
package mcphttp
