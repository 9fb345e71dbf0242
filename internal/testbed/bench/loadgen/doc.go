// Package loadgen drives a Streamable HTTP MCP server, straight or through
// the watchdog's proxy, with concurrent sessions that call the echo tool
// in a loop, and measures calls/s and latency. It starts the two servers
// the proxy's load benchmark uses: the official Go SDK's (demoserver) and a
// fast one (mark3labs/mcp-go), each on a listener that counts the
// connections it accepts, so a benchmark can tell how many connections the
// proxy opened upstream. Benchmark code only: nothing of it ships.
package loadgen
