// Package demo stages `watchdog demo`: a real MCP server (internal/demoserver)
// on loopback, a client session named like the host's driven by a reconnect
// supervisor that behaves like the patched dsh-mcp-client, and the real
// watchdog daemon (given to Run as a function) watching them. It narrates
// what happens from the daemon's own journal and checks every act against
// that journal and the client's results.
package demo
