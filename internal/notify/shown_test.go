package notify

import "testing"

// TestShownEscapesOutsideText: a notification quotes what a log or a
// server said; escape sequences and bidi overrides in it are shown
// escaped, while a summary's own line breaks stay.
func TestShownEscapesOutsideText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name            string
		m               Message
		title, wantBody string
	}{
		{"plain", Message{Title: "mem: session lost", Body: "the server answered 404"}, "mem: session lost", "the server answered 404"},
		{"escapes in the body", Message{Title: "mem: healing failed", Body: "server said \x1b]0;pwned\x07 \u202eexe"},
			"mem: healing failed", `server said \x1b]0;pwned\x07 \u202eexe`},
		{"summary lines kept", Message{Title: "3 servers lost\x1b[2J", Body: "a: lost\nb: \x1b[2Jlost"},
			`3 servers lost\x1b[2J`, "a: lost\nb: \\x1b[2Jlost"},
	}
	for _, tt := range tests {
		title, body := shown(tt.m)
		if title != tt.title || body != tt.wantBody {
			t.Errorf("%s: shown = %q, %q; want %q, %q", tt.name, title, body, tt.title, tt.wantBody)
		}
	}
}
