package classify_test

import (
	"fmt"
	"time"

	"github.com/mcpwatchdog/watchdog/monitor/classify"
)

// A server's log line that says a session is gone, and one that announces
// the idle timeout and where the sessions are kept.
func ExampleLogLineIn() {
	for _, line := range []string{
		`2025-11-29T20:15:44.872Z error [dsh-mcp-client] mem: Error POSTing to endpoint (HTTP 404): {"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"},"id":null}`,
		"2025-11-29T08:00:00.104988Z  INFO nowledge_mem::mcp: MCP session idle timeout and restart restore store configured seconds=43200 store_path=/data/mcp-sessions.json",
		"2025-11-29T08:00:01Z INFO a line about nothing the watchdog follows",
	} {
		m, ok := classify.LogLineIn([]byte(line), time.UTC)
		if !ok {
			fmt.Println("nothing")
			continue
		}
		fmt.Printf("%s (rule %s)", m.Kind, m.Rule)
		if m.IdleTimeout > 0 {
			fmt.Printf(": %s, store %s", m.IdleTimeout, m.StorePath)
		}
		fmt.Println()
	}
	// Output:
	// session_lost (rule post_404)
	// idle_timeout (rule idle_timeout_configured): 12h0m0s, store /data/mcp-sessions.json
	// nothing
}
