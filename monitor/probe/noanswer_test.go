package probe

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestRunNoJSONRPCAnswer: measurement F of issue 15. `watchdog probe`
// against an endpoint answering 200 with invalid JSON exited 0, as if it
// had classified an MCP server. Whatever answers without a JSON-RPC
// message (invalid JSON, an HTML page, an empty body, a 404 page) is
// ErrNoAnswer, and the error says what came back: status, content type
// and the first bytes, escaped.
func TestRunNoJSONRPCAnswer(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, ctype, body string
		status            int
		want              []string
	}{
		{"invalid JSON", "application/json", `{"jsonrpc":"2.0", oops`, 200,
			[]string{"status 200", "content type application/json", `22 bytes starting "{"jsonrpc":"2.0", oops"`}},
		{"an HTML page", "text/html; charset=utf-8", "<html><body>" + strings.Repeat("Welcome! ", 20) + "</body></html>", 200,
			[]string{"status 200", "content type text/html; charset=utf-8", `starting "<html><body>Welcome!`, `"…`}},
		{"an empty body", "", "", 200, []string{"status 200", "content type none", "an empty body"}},
		{"a terminal escape in the body", "text/plain", "\x1b[2J\x1b]0;pwned\x07", 200, []string{`"\x1b[2J\x1b]0;pwned\x07"`}},
		{"a 404 page", "text/plain", "404 page not found\n", 404, []string{"status 404"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tt.ctype != "" {
					w.Header().Set("Content-Type", tt.ctype)
				} else {
					w.Header()["Content-Type"] = nil // no sniffing either
				}
				w.WriteHeader(tt.status)
				_, _ = w.Write([]byte(tt.body))
			}))
			t.Cleanup(hs.Close)
			r, err := Run(testCtx(t), newClient(t, hs.URL))
			if !errors.Is(err, ErrNoAnswer) {
				t.Fatalf("err %v, want ErrNoAnswer; report %+v", err, r)
			}
			msg := err.Error()
			for _, w := range append(tt.want, "initialize:") {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q does not say %q", msg, w)
				}
			}
			if strings.ContainsAny(msg, "\x1b\x07") {
				t.Errorf("error %q carries raw control characters", msg)
			}
			if r.Era != EraUnknown || r.Stateful {
				t.Errorf("report era %q stateful %v, want unknown", r.Era, r.Stateful)
			}
		})
	}
}
