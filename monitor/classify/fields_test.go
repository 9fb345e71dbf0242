package classify

import (
	"testing"
	"time"
)

func TestIdleFields(t *testing.T) {
	t.Parallel()
	const msg = "MCP session idle timeout and restart restore store configured"
	tests := []struct {
		name string
		line string
		d    time.Duration
		path string
	}{
		{"tracing fmt", "INFO nowledge_mem::mcp: " + msg + " seconds=43200 store_path=/home/u/Library/co.nowledge.mem.desktop/mcp-sessions.json", 12 * time.Hour, "/home/u/Library/co.nowledge.mem.desktop/mcp-sessions.json"},
		{"quoted path with spaces", msg + ` seconds=600 store_path="/Users/u/Library/Application Support/x/mcp-sessions.json" pid=1`, 10 * time.Minute, "/Users/u/Library/Application Support/x/mcp-sessions.json"},
		{"unquoted path with spaces at end", msg + " seconds=60 store_path=/Users/u/Library/Application Support/x/mcp-sessions.json  ", time.Minute, "/Users/u/Library/Application Support/x/mcp-sessions.json"},
		{"unquoted path then a field", msg + " store_path=/a b/c.json seconds=7", 7 * time.Second, "/a b/c.json"},
		{"json", `{"fields":{"message":"` + msg + `","seconds":3600,"store_path":"/var/lib/mem/mcp-sessions.json"}}`, time.Hour, "/var/lib/mem/mcp-sessions.json"},
		{"json escapes", `{"message":"` + msg + `","store_path":"C:\\Users\\u\\mcp-sessions.json","seconds":"90"}`, 90 * time.Second, `C:\Users\u\mcp-sessions.json`},
		{"seconds with unit", msg + " seconds=43200s", 12 * time.Hour, ""},
		{"only path", msg + " store_path=/x/mcp-sessions.json", 0, "/x/mcp-sessions.json"},
		{"neither", msg, 0, ""},
		{"other seconds field", msg + " idle_seconds=5 timeout.seconds=6", 0, ""},
		{"absurd seconds", msg + " seconds=99999999999", 0, ""},
		{"negative seconds", msg + " seconds=-5", 0, ""},
		{"unterminated quote", msg + ` store_path="/x`, 0, ""},
	}
	for _, tc := range tests {
		d, p := idleFields([]byte(tc.line))
		if d != tc.d || p != tc.path {
			t.Errorf("%s: got %v %q, want %v %q", tc.name, d, p, tc.d, tc.path)
		}
	}
}
