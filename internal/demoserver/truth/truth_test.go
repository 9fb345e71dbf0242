package truth

import (
	"strings"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		line string
		want Event
		ok   bool
	}{
		{"SESSION_START abc tsserver-test", Event{Kind: Start, ID: "abc", Client: "tsserver-test", At: at}, true},
		{"SESSION_START abc my client", Event{Kind: Start, ID: "abc", Client: "my client", At: at}, true},
		{"SESSION_START abc -", Event{Kind: Start, ID: "abc", At: at}, true},
		{"SESSION_START abc", Event{Kind: Start, ID: "abc", At: at}, true}, // older form
		{"SESSION_END abc idle", Event{Kind: End, ID: "abc", Reason: "idle", At: at}, true},
		{"SESSION_END abc deleted", Event{Kind: End, ID: "abc", Reason: "deleted", At: at}, true},
		{"TOOL_CALL abc p-1 two words", Event{Kind: Call, ID: "abc", Text: "p-1 two words", At: at}, true},
		{"TOOL_CALL - soak", Event{Kind: Call, ID: "-", Text: "soak", At: at}, true}, // a stateless server's call
		{"TOOL_CALL abc", Event{Kind: Call, ID: "abc", At: at}, true},
		{"TOOL_CALL ", Event{}, false},
		{"SESSION_END abc", Event{}, false},
		{"SESSION_END abc two words", Event{}, false},
		{"SESSION_START ", Event{}, false},
		{"SESSION_START  x", Event{}, false},
		{"LISTENING http://127.0.0.1:1/mcp", Event{}, false},
		{"", Event{}, false},
	}
	for _, tc := range tests {
		got, ok := Parse(tc.line, at)
		if ok != tc.ok || got != tc.want {
			t.Errorf("Parse(%q) = %+v, %v; want %+v, %v", tc.line, got, ok, tc.want, tc.ok)
		}
	}
}

// FuzzParse: any line either parses into an event whose fields hold no line break
// and whose id is the second word, or is ignored.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"SESSION_START a b c", "SESSION_END a idle", "SESSION_START a", "SESSION_END", "TOOL_CALL a b c", "x", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		e, ok := Parse(line, time.Time{})
		if !ok {
			return
		}
		if e.ID == "" || strings.Contains(e.ID, " ") {
			t.Fatalf("bad id %q from %q", e.ID, line)
		}
		if (e.Kind == End) != (e.Reason != "") || (e.Kind != Start && e.Client != "") || (e.Kind != Call && e.Text != "") {
			t.Fatalf("fields do not fit kind %s: %+v from %q", e.Kind, e, line)
		}
		if !strings.Contains(line, e.ID) {
			t.Fatalf("id %q not in %q", e.ID, line)
		}
	})
}
