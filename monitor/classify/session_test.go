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
		{"controls and bad utf-8", "a\tb\x00c\xffd", "a b\uFFFDc\uFFFDd"},
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
