package classify

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpwatchdog/watchdog/internal/mask"
)

func TestSessionID(t *testing.T) {
	t.Parallel()
	const uuid = "6f1c2b3a-9d4e-4f5a-8b6c-7d8e9f0a1b2c"
	const hex = "0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d"
	const b64 = "Xy3_kQ-9aZbC7dEfGhIjKl"
	tests := []struct{ line, want string }{
		{"mcp-session-id: " + uuid, uuid},
		{"Mcp-Session-Id=" + hex + " next", hex},
		{`headers {"mcp-session-id":"` + uuid + `"}`, uuid},
		{"session_id=" + uuid, uuid},
		{`session_id="` + uuid + `"`, uuid},
		{`{"sessionId":"` + b64 + `"}`, b64},
		{"sessionID=" + hex, hex},
		{"session-id: " + hex, hex},
		{`{"session":"` + uuid + `"}`, uuid},
		{"session=" + hex, hex},
		{"Reconnected, session " + hex + ", ok", hex},
		{"Session '" + uuid + "' closed", uuid},
		{"SESSION_ID=" + hex, hex},
		{"session not found session_id=" + uuid + " other session_id=" + hex, uuid},
		{"session_id=abcdefghijklmnopq", "abcdefghijklmnopq"}, // keyed, long, no digit
		// Not ids.
		{"Session terminated", ""},
		{"MCP session idle timeout seconds=43200", ""},
		{"No valid session ID provided", ""},
		{"session abcdefghij", ""},     // bare needs a digit
		{"session_id=undefined", ""},   // keyed, short and no digit
		{"session_id=abc123", ""},      // too short
		{"sessions=12345678 open", ""}, // another word
		{"Mcp-Session-Id header rejected", ""},
		{"session_id=" + strings.Repeat("a1", 130), ""}, // too long
		{"", ""},
	}
	for _, tc := range tests {
		if got := SessionID([]byte(tc.line)); got != tc.want {
			t.Errorf("SessionID(%q) = %q, want %q", tc.line, got, tc.want)
		}
	}
}

func TestMaskSession(t *testing.T) {
	t.Parallel()
	tests := []struct{ id, want string }{
		{"6f1c2b3a-9d4e-4f5a-8b6c-7d8e9f0a1b2c", "6f1c…1b2c"},
		{"0a9b8c7d6e5f", "0a…5f"},
		{"ab12cd34", mask.ID("ab12cd34")},
		{"", ""},
		{"ääää1234ßßßßxyzw", "ääää…xyzw"},
	}
	for _, tc := range tests {
		if got := MaskSession(tc.id); got != tc.want {
			t.Errorf("MaskSession(%q) = %q, want %q", tc.id, got, tc.want)
		}
	}
}

func TestDisplayText(t *testing.T) {
	t.Parallel()
	const a = "6f1c2b3a-9d4e-4f5a-8b6c-7d8e9f0a1b2c"
	const b = "0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d"
	tests := []struct {
		name, line, want string
	}{
		{"two ids and a bare repeat",
			"session_id=" + a + " sessionId=" + b + " retry " + a,
			"session_id=6f1c…1b2c sessionId=0a9b…6c5d retry 6f1c…1b2c"},
		{"controls and bad utf-8", "a\tb\x00c\xffd", `a b\x00c\xffd`},
		// stripANSI drops the ESC that starts the OSC; the rest is escaped.
		{"an OSC title and a bidi override", "x \x1b]0;pwned\x07 \u202eevil", `x ]0;pwned\x07 \u202eevil`},
		{"no ids", "plain line", "plain line"},
	}
	for _, tc := range tests {
		if got := displayText([]byte(tc.line)); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}

	// An id across the cut is masked before the line is shortened.
	long := strings.Repeat("é", 140) + " session_id=" + a + strings.Repeat(" tail", 50)
	got := displayText([]byte(long))
	if strings.Contains(got, a[:12]) || !strings.HasSuffix(got, "…") || !utf8.ValidString(got) {
		t.Errorf("long line: %q", got)
	}
	if len(got) > MaxText+len("…") {
		t.Errorf("long line kept %d bytes", len(got))
	}

	// Many ids: every one masked, including where masking pulls later text
	// into view, and no partial id at the cut.
	var many strings.Builder
	var ids []string
	for i := range 2000 {
		id := fmt.Sprintf("%032x", (i+1)*7919)
		ids = append(ids, id)
		many.WriteString("session_id=" + id + " ")
	}
	got = displayText([]byte(many.String()))
	if !strings.HasSuffix(got, "…") {
		t.Errorf("many ids: not marked as cut: %q", got)
	}
	for _, f := range strings.Fields(strings.TrimSuffix(got, "…")) {
		if v, ok := strings.CutPrefix(f, "session_id="); ok && !strings.Contains(v, "…") && v != "" {
			t.Errorf("many ids: unmasked %q in %q", v, got)
		}
	}
	for _, id := range ids {
		if strings.Contains(got, id[:12]) {
			t.Fatalf("many ids: %s shown", id)
		}
	}
}

// TestDisplayTextMasksEveryShape: measurement B of issue 15. `watchdog
// scan` printed full ids in "Session not found: <id>", "sid=<id>" and "No
// valid session ID provided: <uuid>". Every id-shaped token next to a
// session keyword is masked in the text, and the finding names it.
func TestDisplayTextMasksEveryShape(t *testing.T) {
	t.Parallel()
	const uuid = "6f1c2b3a-9d4e-4f5a-8b6c-7d8e9f0a1b2c"
	const hex = "0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d"
	const short = "a1b2c3d4e5"
	tests := []struct{ name, line, id string }{
		{"session not found, colon", "Error: Session not found: " + uuid, uuid},
		{"session not found, hex", `{"level":50,"msg":"Session not found: ` + hex + `"}`, hex},
		{"no valid session id provided", "Bad Request: No valid session ID provided: " + uuid, uuid},
		{"sid=", "WARN handler sid=" + hex + " Session not found", hex},
		{"sid: quoted", `Session terminated {"sid": "` + uuid + `"}`, uuid},
		{"SID=", "session terminated SID=" + short, short},
		{"mcp-session-id", "Mcp-Session-Id: " + uuid + " not supported", uuid},
		{"session_id=", "MCP session closed session_id=" + hex + " reason=idle_timeout", hex},
	}
	for _, tt := range tests {
		got := displayText([]byte(tt.line))
		if strings.Contains(got, tt.id) || !strings.Contains(got, MaskSession(tt.id)) {
			t.Errorf("%s: displayText(%q) = %q, want %s masked as %s", tt.name, tt.line, got, tt.id, MaskSession(tt.id))
		}
		if ds := displaySession([]byte(tt.line)); ds != tt.id {
			t.Errorf("%s: displaySession = %q, want %q", tt.name, ds, tt.id)
		}
	}
	// Not ids: left as they are.
	for _, line := range []string{
		"Session not found: undefined",
		"consider=12345678ab", // "sid" inside a word
		"sessions: 12345678",  // another word, and no phrase
		"MCP session idle timeout seconds=43200",
		"Session not found",
	} {
		if got := displayText([]byte(line)); got != line {
			t.Errorf("displayText(%q) = %q, want it unchanged", line, got)
		}
	}
}
