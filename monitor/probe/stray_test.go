package probe

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// discoverOpensSession answers server/discover normally but also opens a
// real, initialized session and hands its id back on the answer, as a
// careless server might.
func discoverOpensSession(_ *mcp.Server, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Mcp-Method") == "server/discover" {
			w.Header().Set("Mcp-Session-Id", openSession(r, next))
		}
		next.ServeHTTP(w, r)
	})
}

// openSession runs initialize and notifications/initialized through next
// in-process and returns the session id.
func openSession(orig *http.Request, next http.Handler) string {
	post := func(body, sid string) *httptest.ResponseRecorder {
		req := httptest.NewRequestWithContext(orig.Context(), http.MethodPost, "http://"+orig.Host+"/", strings.NewReader(body))
		req.Host = orig.Host
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
			req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		}
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, req)
		return rec
	}
	init := post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"stray","version":"1"}}}`, "")
	sid := init.Header().Get("Mcp-Session-Id")
	post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, sid)
	return sid
}

func TestRunEndsStraySession(t *testing.T) {
	t.Parallel()
	s := newSDKServer(t, mcp.StreamableHTTPOptions{SessionTimeout: time.Minute, JSONResponse: true}, discoverOpensSession)
	r, err := Run(testCtx(t), newClient(t, s.http.URL))
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if r.SessionLeft || !hasNote(r, "server/discover opened a session; the probe ended it") {
		t.Fatalf("left %v, notes %q", r.SessionLeft, r.Notes)
	}
	if _, ok := r.Timings[StepCleanup]; !ok {
		t.Fatal("no cleanup timing")
	}
	waitSessions(t, s.srv, 0)
}
