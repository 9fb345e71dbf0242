package mask

import (
	"crypto/sha256"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpwatchdog/watchdog/internal/textsafe"
)

func TestID(t *testing.T) {
	t.Parallel()
	short := func(id string) string { return fmt.Sprintf("#%x", sha256.Sum256([]byte(id)))[:5] }
	tests := []struct{ in, want string }{
		{"", ""},
		{"s1", short("s1")},
		{"short", short("short")},
		{"12345678901", short("12345678901")},
		{"123456789012", "12…12"},
		{"ab12cd34ef569f3", "ab…f3"},
		{"ab12cd34ef569f3e", "ab12…9f3e"},
		{"0f8e4a1c-7b2d-4e6f-9a3b-5c1d2e3f4a5b", "0f8e…4a5b"},
		{"ääää1234ßßßßxyzw", "ääää…xyzw"},
		// Shown characters are escaped: no control or bidi character survives.
		{"\x1b[2J0123456789\u202e\x07ab", `\x1b[2J…\u202e\x07ab`},
		{"\xff\xfe" + strings.Repeat("a", 20), "\uFFFD\uFFFDaa…aaaa"}, // invalid bytes shown as U+FFFD
	}
	for _, tt := range tests {
		if got := ID(tt.in); got != tt.want {
			t.Errorf("ID(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestIDShortIDsApart: measurement C of issue 15. Every id under 12
// characters masked to "…", so two short ids could not be told apart.
func TestIDShortIDsApart(t *testing.T) {
	t.Parallel()
	seen := map[string]string{}
	for i := range 200 {
		id := fmt.Sprintf("s%d", i)
		m := ID(id)
		if !strings.HasPrefix(m, "#") || len(m) != 5 {
			t.Fatalf("ID(%q) = %q, want # and 4 hex digits", id, m)
		}
		if strings.ContainsAny(m[1:], "s") || strings.Contains(m, id) {
			t.Errorf("ID(%q) = %q shows the id", id, m)
		}
		if prev, dup := seen[m]; dup && i < 20 {
			t.Errorf("ID(%q) = ID(%q) = %q", id, prev, m)
		}
		seen[m] = id
	}
	if len(seen) < 190 {
		t.Errorf("200 short ids give only %d masks", len(seen))
	}
	if a, b := ID("s1"), ID("s1"); a != b {
		t.Error("the short mask is not stable")
	}
}

// TestIDRevealsLittle: no mask shows more than 4 characters of an id of 12
// to 15, nor more than 8 of a longer one, nor a raw unsafe character.
func TestIDRevealsLittle(t *testing.T) {
	t.Parallel()
	for n := 1; n <= 40; n++ {
		id := strings.Repeat("x", n)
		m := ID(id)
		shown := strings.Count(m, "x")
		limit := 0
		switch {
		case n >= 16:
			limit = 8
		case n >= 12:
			limit = 4
		}
		if shown > limit {
			t.Errorf("ID of %d characters shows %d: %q", n, shown, m)
		}
		if n >= 12 && !strings.Contains(m, "…") {
			t.Errorf("ID of %d characters = %q", n, m)
		}
	}
}

func TestURL(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{"plain", "http://127.0.0.1:14242/mcp", "http://127.0.0.1:14242/mcp"},
		{"query token", "http://127.0.0.1:1/mcp?token=SECRET", "http://127.0.0.1:1/mcp?token=REDACTED"},
		{"several values and a bare one", "https://h/mcp?a=1&token=SECRET&SECRET2", "https://h/mcp?a=REDACTED&token=REDACTED&REDACTED"},
		{"user info", "http://admin:SECRET@127.0.0.1/mcp", "http://REDACTED@127.0.0.1/mcp"},
		{"user only", "http://SECRET@127.0.0.1/mcp", "http://REDACTED@127.0.0.1/mcp"},
		{"fragment", "http://h/mcp#access_token=SECRET", "http://h/mcp#REDACTED"},
		{"empty query", "http://h/mcp?", "http://h/mcp?"},
		{"unparseable, credentials", "http://admin:SECRET%zz@127.0.0.1:1/mcp?token=SECRET", "http://127.0.0.1:1/…"},
		{"unparseable, password as port", "http://admin:SECRET/mcp%zz", "http://admin/…"},
		{"unparseable, control character", "http://h\x1b[2J/mcp?token=SECRET", `http://h\x1b[2J/…`},
		{"unparseable, no scheme", "::SECRET%zz", Unparseable},
		{"unparseable, space in host", "http://SE CRET%zz/x", Unparseable},
	}
	for _, tt := range tests {
		got := URL(tt.in)
		if got != tt.want {
			t.Errorf("%s: URL(%q) = %q, want %q", tt.name, tt.in, got, tt.want)
		}
		if strings.Contains(got, "SECRET") {
			t.Errorf("%s: URL(%q) = %q shows the secret", tt.name, tt.in, got)
		}
	}
}

func TestParseURL(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{"bad escape in the password", "http://admin:SECRET%zz@127.0.0.1:1/mcp", `http://127.0.0.1:1/…: invalid URL escape "%zz"`},
		{"password taken for a port", "http://admin:SECRET/mcp", `http://admin/…: invalid port "…" after host`},
		{"control character", "http://h/mcp\x1b[2J?token=SECRET", `http://h/…: net/url: invalid control character in URL`},
	}
	for _, tt := range tests {
		u, err := ParseURL(tt.in)
		if err == nil {
			t.Errorf("%s: ParseURL(%q) = %v, nil", tt.name, tt.in, u)
			continue
		}
		if got := err.Error(); got != tt.want {
			t.Errorf("%s: error %q, want %q", tt.name, got, tt.want)
		}
	}
	if u, err := ParseURL("http://127.0.0.1:1/mcp?token=x"); err != nil || u.Query().Get("token") != "x" {
		t.Errorf("a good URL: %v, %v", u, err)
	}
}

// FuzzURL: whatever the URL, what URL shows is clean text, never holds a
// query value, user info or fragment of a URL that parses, and ParseURL's
// error never holds the whole URL.
func FuzzURL(f *testing.F) {
	for _, s := range []string{"http://127.0.0.1:1/mcp?token=SECRETVALUE", "http://u:SECRETVALUE@h/", "http://h/#SECRETVALUE", "http://u:SECRETVALUE%zz@h/", "%zz", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		got := URL(raw)
		if !utf8.ValidString(got) || !textsafe.Clean(got) {
			t.Fatalf("URL(%q) = %q is not clean", raw, got)
		}
		if _, err := ParseURL(raw); err != nil && len(raw) > 16 && strings.Contains(err.Error(), raw) {
			t.Fatalf("ParseURL(%q) error %q shows it whole", raw, err)
		}
		if u, err := url.Parse(raw); err == nil && u.User != nil {
			pw, _ := u.User.Password()
			if len(pw) >= 6 && !strings.Contains(u.Host+u.EscapedPath(), pw) && strings.Contains(got, pw) {
				t.Fatalf("URL(%q) = %q shows the password", raw, got)
			}
		}
	})
}
