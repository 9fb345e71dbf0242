package textsafe

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEscape(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{"empty", "", ""},
		{"plain", "dsh-mcp-client 1.2", "dsh-mcp-client 1.2"},
		{"unicode kept", "Nowledge Mem ✓ é 日本", "Nowledge Mem ✓ é 日本"},
		{"backslash kept", `C:\logs\x1b`, `C:\logs\x1b`},
		{"clear screen", "\x1b[2Jhi", `\x1b[2Jhi`},
		{"window title (OSC)", "\x1b]0;pwned\x07", `\x1b]0;pwned\x07`},
		{"forged line", "a\nserver x: healthy\r", `a\nserver x: healthy\r`},
		{"tab, NUL, DEL", "a\tb\x00c\x7f", `a\tb\x00c\x7f`},
		{"C1 CSI", "a\u009b2Jb", `a\u009b2Jb`},
		{"bidi override", "abc\u202eexe.txt", `abc\u202eexe.txt`},
		{"bidi isolates and marks", "\u2066\u2067\u2068\u2069\u200e\u200f\u061c\u202a\u202b\u202c\u202d",
			`\u2066\u2067\u2068\u2069\u200e\u200f\u061c\u202a\u202b\u202c\u202d`},
		{"line separators", "a\u2028b\u2029", `a\u2028b\u2029`},
		{"invalid UTF-8", "a\xffb\xc3", `a\xffb\xc3`},
		{"a real U+FFFD is kept", "a\uFFFDb", "a\uFFFDb"},
	}
	for _, tt := range tests {
		if got := Escape(tt.in); got != tt.want {
			t.Errorf("%s: Escape(%q) = %q, want %q", tt.name, tt.in, got, tt.want)
		}
		if Clean(tt.in) != (tt.in == tt.want) {
			t.Errorf("%s: Clean(%q) = %v", tt.name, tt.in, Clean(tt.in))
		}
	}
}

// FuzzEscape: whatever comes in, what goes out is valid UTF-8 with no
// character Escape exists to remove, and clean text is left alone.
func FuzzEscape(f *testing.F) {
	for _, s := range []string{"", "plain", "\x1b[2J", "\u202e", "\xff\xfe", "a\nb", "\u009b", `\x1b`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Escape(s)
		if !utf8.ValidString(got) {
			t.Fatalf("Escape(%q) = %q: not valid UTF-8", s, got)
		}
		for _, r := range got {
			if Unsafe(r) {
				t.Fatalf("Escape(%q) = %q keeps %U", s, got, r)
			}
		}
		if Clean(s) && got != s {
			t.Fatalf("clean %q changed to %q", s, got)
		}
		if !Clean(got) || Escape(got) != got {
			t.Fatalf("Escape(%q) = %q is not clean", s, got)
		}
		if len(got) < len(s) || (!Clean(s) && !strings.Contains(got, `\`)) {
			t.Fatalf("Escape(%q) = %q lost text", s, got)
		}
	})
}

// TestJSON: a JSON document keeps its value, and no bidi or C1 control
// stands raw in it; structural whitespace is left alone.
func TestJSON(t *testing.T) {
	t.Parallel()
	name := "evil\u202eexe\u0085\x7f\x1b[2J\u2066é日"
	doc, err := json.MarshalIndent(map[string]any{"client": name, "n": 1}, "", "\t")
	if err != nil {
		t.Fatal(err)
	}
	got := JSON(doc)
	var back map[string]any
	if err := json.Unmarshal(got, &back); err != nil || back["client"] != name {
		t.Fatalf("JSON(%s) = %s: decodes to %q, %v", doc, got, back["client"], err)
	}
	for _, r := range string(got) {
		if r != '\n' && r != '\t' && Unsafe(r) {
			t.Errorf("JSON(%s) = %s keeps %U", doc, got, r)
		}
	}
	if !strings.Contains(string(got), `\u202e`) || !strings.Contains(string(got), "é日") || !strings.Contains(string(got), "\n\t") {
		t.Errorf("JSON = %s", got)
	}
	plain := []byte(`{"a": "b"}`)
	if out := JSON(plain); &out[0] != &plain[0] {
		t.Error("a clean document is copied")
	}
}
