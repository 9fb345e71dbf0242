package classify

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"
)

// Long: a table of 53 cases.
func TestClassify(t *testing.T) {
	t.Parallel()
	const uuid = "6f1c2b3a-9d4e-4f5a-8b6c-7d8e9f0a1b2c"
	junk := []byte{0, 1, 2, 0xff, 0xfe, '\r', 0x1b, '[', 'x', 0x80, 'S', 'e', 's', 0, 's', 'i', 'o', 'n'}
	filler := strings.Repeat("ordinary filler text 12345 ", MaxLine/27+1)
	tests := []struct {
		name    string
		line    string
		ok      bool
		kind    Kind
		rule    string
		session string
	}{
		// SessionLost, every spelling.
		{"go sdk plain 404 body", "2025/11/29 10:00:00 client: 404 session not found", true, SessionLost, "session_not_found", ""},
		{"capitalised", "WARN Session not found for request 17", true, SessionLost, "session_not_found", ""},
		{"rmcp body", "responding 404 Not Found: Session not found", true, SessionLost, "rmcp_session_not_found", ""},
		{"ts server -32001", `{"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"},"id":null}`, true, SessionLost, "jsonrpc_32001_session_not_found", ""},
		{"python -32600", `2025-11-29 10:00:00,123 WARNING mcp.server.streamable_http: {"jsonrpc":"2.0","id":"server-error","error":{"code":-32600,"message":"Session not found"}}`, true, SessionLost, "jsonrpc_32600_session_not_found", ""},
		// Measured (healer/proxy TestPythonClientStuckWithoutProxy, probe): FastMCP 4.2.3's
		// answer to an unknown session, and what the Python SDK clients raise on a loss.
		{"fastmcp 404 body", `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Session not found"}}`, true, SessionLost, "jsonrpc_32600_session_not_found", ""},
		{"python sdk 2.x client", "mcp.shared.exceptions.MCPError: Session not found", true, SessionLost, "session_not_found", ""},
		{"python sdk 1.x client", "mcp.shared.exceptions.McpError: Session terminated", true, SessionLost, "session_terminated", ""},
		{"ts client POST 404", "Streamable HTTP error: Error POSTing to endpoint: Not Found", true, SessionLost, "post_404", ""},
		{"ts client POST older format", `Error POSTing to endpoint (HTTP 404): {"error":{"code":-32001,"message":"Session not found"}}`, true, SessionLost, "post_404", ""},
		{"ts client POST with go body", "Streamable HTTP error: Error POSTing to endpoint: session not found", true, SessionLost, "post_404", ""},
		{"ts example server 400", `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: No valid session ID provided"},"id":null}`, true, SessionLost, "no_valid_session_id", ""},
		{"session terminated", "DELETE /mcp: Session terminated mcp-session-id: " + uuid, true, SessionLost, "session_terminated", uuid},
		{"session terminated lower", "transport closed: session terminated by server", true, SessionLost, "session_terminated", ""},
		{"with session id", "WARN rmcp::tower: session not found session_id=" + uuid, true, SessionLost, "session_not_found", uuid},
		{"crlf", "Session not found\r\n", true, SessionLost, "session_not_found", ""},

		// The GET stream hint, never a loss.
		{"sse 404", "Streamable HTTP error: Failed to open SSE stream: Not Found", true, SSEStream404, "sse_stream_404", ""},
		{"sse 404 numeric", "Failed to open SSE stream (HTTP 404)", true, SSEStream404, "sse_stream_404", ""},
		{"sse wins over session words", "Failed to open SSE stream: Not Found (Session not found)", true, SSEStream404, "sse_stream_404", ""},
		{"sse 405 is normal", "Failed to open SSE stream: Method Not Allowed", false, 0, "", ""},

		// Modern method-not-found is not a loss.
		{"modern ping -32601", `Streamable HTTP error: Error POSTing to endpoint: {"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"Method not found"}}`, false, 0, "", ""},
		{"modern ping 404 -32601", `Error POSTing to endpoint (HTTP 404): {"error":{"code":-32601,"message":"Method not found"}}`, false, 0, "", ""},
		{"POST 500", "Error POSTing to endpoint (HTTP 500): Internal Server Error", false, 0, "", ""},
		{"404 inside a number", "Error POSTing to endpoint: upstream 14042 refused", false, 0, "", ""},

		// Idle timeout announcement.
		{"idle timeout", "2025-11-29T08:00:00.104988Z  INFO nowledge_mem::mcp: MCP session idle timeout and restart restore store configured seconds=43200 store_path=/home/u/mcp-sessions.json", true, IdleTimeoutAnnounced, "idle_timeout_configured", ""},

		// Legacy header / protocol rejected.
		{"header rejected", "rejected legacy Mcp-Session-Id header from client dsh-mcp-client", true, LegacyHeaderRejected, "legacy_session_header", ""},
		{"header unsupported lower", "400 mcp-session-id: header unsupported by stateless server", true, LegacyHeaderRejected, "legacy_session_header", ""},
		{"header not supported", "MCP-Session-Id is not supported in protocol 2026-07-28", true, LegacyHeaderRejected, "legacy_session_header", ""},
		{"header merely logged", "POST /mcp 200 mcp-session-id: " + uuid, false, 0, "", ""},
		{"header required is not legacy", "Bad Request: Mcp-Session-Id header is required", false, 0, "", ""},
		{"rejection word far from header", "Mcp-Session-Id: " + uuid + strings.Repeat(" x", 40) + " rejected", false, 0, "", ""},
		{"ts server legacy version", "Error: Bad Request: Unsupported protocol version: 2025-03-26 (supported versions: 2026-07-28)", true, LegacyHeaderRejected, "legacy_protocol_version", ""},
		{"ts body modern-only list", `{"error":{"code":-32000,"message":"Bad Request: Unsupported protocol version (supported versions: 2026-07-28)"}}`, true, LegacyHeaderRejected, "legacy_protocol_version", ""},
		{"go sdk legacy version", `protocol version "2025-03-26" is not supported by this server`, true, LegacyHeaderRejected, "legacy_protocol_version", ""},
		{"old server rejects modern", "Unsupported protocol version: 2026-07-28 (supported versions: 2025-06-18, 2025-03-26)", false, 0, "", ""},
		{"old server body", "Bad Request: Unsupported protocol version (supported versions: 2025-06-18, 2025-03-26)", false, 0, "", ""},
		{"go sdk other refusal", `2025-11-29T10:00:00Z method "ping" is not supported by this server`, false, 0, "", ""},

		// Reconnected.
		{"reconnected", "MCP client successfully reconnected", true, Reconnected, "reconnected", ""},
		{"Reconnected to server", "info [dsh-mcp-client] Reconnected to MCP server nowledge-mem, session 0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d", true, Reconnected, "reconnected", "0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d"},
		{"has been reconnected", "transport has been reconnected", true, Reconnected, "reconnected", ""},
		{"server connected", "MCP server connected: nowledge-mem", true, Reconnected, "mcp_server_connected", ""},
		{"re-established", "connection re-established after 3 attempts", true, Reconnected, "connection_reestablished", ""},
		{"Re-established", "Connection re-established", true, Reconnected, "connection_reestablished", ""},
		{"not reconnected", "server not reconnected", false, 0, "", ""},
		{"could not be reconnected", "could not be reconnected after 10 attempts", false, 0, "", ""},
		{"will be reconnected", "transport will be reconnected in 500ms", false, 0, "", ""},
		{"wasn't reconnected", "it wasn't reconnected", false, 0, "", ""},
		{"negated then positive", "a not reconnected, b reconnected", true, Reconnected, "reconnected", ""},

		// Nothing.
		{"ordinary", "2025-11-29T08:00:02.001Z info [dsh-web] GET /api/threads 200 14ms", false, 0, "", ""},
		{"empty", "", false, 0, "", ""},
		// A server's own account of an end, with a reason it is sure of.
		{"session closed by idle", "INFO MCP session closed session_id=" + uuid + " reason=idle_timeout", true, SessionClosed, "session_closed", uuid},
		{"session closed, no reason", "INFO MCP session closed session_id=" + uuid, false, 0, "", ""},

		{"binary junk", string(junk), false, 0, "", ""},
		{"split literal", "Session not\x00found", false, 0, "", ""},
		{"wrong case not listed", "SESSION NOT FOUND", false, 0, "", ""},
		{"1 MiB ordinary line", filler, false, 0, "", ""},
		{"1 MiB line, literal first", "Session not found " + filler, true, SessionLost, "session_not_found", ""},
		{"1 MiB line, literal past MaxLine", filler + "Session not found", false, 0, "", ""},
	}
	covered := map[string]bool{}
	for _, tc := range tests {
		covered[tc.rule] = true
	}
	for _, r := range std.rules {
		if !covered[r.name] {
			t.Errorf("no test row for rule %s", r.name)
		}
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m, ok := LogLineIn([]byte(tc.line), time.UTC)
			if ok != tc.ok {
				t.Fatalf("ok = %v, want %v (match %+v)", ok, tc.ok, m)
			}
			if !ok {
				if m != (Match{}) {
					t.Errorf("no match but Match = %+v", m)
				}
				return
			}
			if m.Kind != tc.kind || m.Rule != tc.rule || m.Session != tc.session {
				t.Errorf("got kind %v rule %q session %q, want %v %q %q", m.Kind, m.Rule, m.Session, tc.kind, tc.rule, tc.session)
			}
		})
	}
}

func TestClassifyFields(t *testing.T) {
	t.Parallel()
	line := "2025-11-29T08:00:00.104988Z  INFO nowledge_mem::mcp: MCP session idle timeout and restart restore store configured seconds=43200 store_path=/home/u/.local/share/co.nowledge.mem.desktop/mcp-sessions.json"
	m, ok := LogLine([]byte(line))
	if !ok {
		t.Fatal("no match")
	}
	want := Match{Kind: IdleTimeoutAnnounced, Rule: "idle_timeout_configured", IdleTimeout: 12 * time.Hour,
		StorePath: "/home/u/.local/share/co.nowledge.mem.desktop/mcp-sessions.json",
		Time:      time.Date(2025, 11, 29, 8, 0, 0, 104988000, time.UTC)}
	if !m.Time.Equal(want.Time) {
		t.Errorf("time %v, want %v", m.Time, want.Time)
	}
	m.Time = want.Time
	if m != want {
		t.Errorf("got %+v\nwant %+v", m, want)
	}
}

// A server's own account of an end names why, when it is sure; an end
// with no reason it can name is not classified (the store and the idle
// time judge it instead).
func TestClassifyEndReason(t *testing.T) {
	t.Parallel()
	const id = "6f1c2b3a-9d4e-4f5a-8b6c-7d8e9f0a1b2c"
	tests := []struct {
		line string
		want EndReason
	}{
		{"time=2026-12-01T06:00:00Z level=INFO msg=\"MCP session closed\" session_id=" + id + " reason=idle_timeout", EndIdle},
		{"INFO MCP session closed session_id=" + id + " reason=deleted", EndDeleted},
		{"INFO MCP session closed session_id=" + id + " reason=shutdown", EndShutdown},
		{`{"msg":"Session closed","session_id":"` + id + `","reason":"Client DELETE"}`, EndDeleted},
		{"INFO MCP session closed session_id=" + id + " reason=closed", ""},
		{"INFO MCP session closed session_id=" + id, ""},
		{"INFO SSE session closed by the browser", ""},
	}
	for _, tc := range tests {
		m, ok := LogLine([]byte(tc.line))
		if tc.want == "" {
			if ok && m.Kind == SessionClosed {
				t.Errorf("%q classified as an end with reason %q", tc.line, m.EndReason)
			}
			continue
		}
		if !ok || m.Kind != SessionClosed || m.EndReason != tc.want || m.Session != id {
			t.Errorf("%q: got %+v %v, want an end with reason %q naming the session", tc.line, m, ok, tc.want)
		}
	}
}

func TestClassifyStripsColour(t *testing.T) {
	t.Parallel()
	line := "\x1b[2m2025-11-29T20:16:02.690001Z\x1b[0m \x1b[33m WARN\x1b[0m session not found \x1b[3msession_id\x1b[0m\x1b[2m=\x1b[0m0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d"
	m, ok := LogLine([]byte(line))
	if !ok || m.Kind != SessionLost {
		t.Fatalf("got %+v %v", m, ok)
	}
	if m.Session != "0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d" {
		t.Errorf("session %q", m.Session)
	}
	if want := time.Date(2025, 11, 29, 20, 16, 2, 690001000, time.UTC); !m.Time.Equal(want) {
		t.Errorf("time %v, want %v", m.Time, want)
	}
}

func TestKindNames(t *testing.T) {
	t.Parallel()
	want := []string{"session_lost", "idle_timeout", "legacy_header_rejected", "reconnected", "sse_stream_404", "session_closed"}
	var got []string
	for _, k := range Kinds() {
		if !k.Valid() {
			t.Errorf("%v not valid", k)
		}
		got = append(got, k.String())
		b, err := json.Marshal(k)
		if err != nil {
			t.Fatal(err)
		}
		var back Kind
		if err := json.Unmarshal(b, &back); err != nil || back != k {
			t.Errorf("round trip %s: %v %v", b, back, err)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("names %v, want %v", got, want)
	}
	for _, k := range []Kind{0, 7, -1} {
		if k.Valid() {
			t.Errorf("%d valid", k)
		}
		if _, err := json.Marshal(k); err == nil {
			t.Errorf("marshal of %d succeeded", k)
		}
	}
	var k Kind
	if err := k.UnmarshalText([]byte("lost")); err == nil {
		t.Error("unknown name accepted")
	}
}

func TestLiterals(t *testing.T) {
	t.Parallel()
	lits := Literals()
	seen := map[string]bool{}
	for _, l := range lits {
		if seen[l] {
			t.Errorf("duplicate literal %q", l)
		}
		seen[l] = true
	}
	for _, r := range std.rules {
		if len(r.lits) == 0 {
			t.Errorf("rule %s has no literal: the prefilter would never select it", r.name)
		}
		for _, l := range r.lits {
			if !seen[l] {
				t.Errorf("rule %s literal %q missing from Literals()", r.name, l)
			}
		}
	}
	lits[0] = "changed"
	if Literals()[0] == "changed" {
		t.Error("Literals returns the table's own slice")
	}
}
