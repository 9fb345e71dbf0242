package probe

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwatchdog/watchdog/internal/host"
)

const tsNoSession = `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: No valid session ID provided"},"id":null}`

// tsExample gives the SDK handler the manners of the TypeScript SDK's example
// servers (and the many servers copied from them): a POST without a known
// session is served only if it is initialize; everything else gets 400.
func tsExample(srv *mcp.Server, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sid := r.Header.Get("Mcp-Session-Id")
		if sid != "" && knows(srv, sid) {
			next.ServeHTTP(w, r)
			return
		}
		if r.Method == http.MethodPost && sid == "" && isInitialize(r) {
			next.ServeHTTP(w, r)
			return
		}
		if r.Method == http.MethodPost {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, tsNoSession)
			return
		}
		http.Error(w, "Invalid or missing session ID", http.StatusBadRequest)
	})
}

// isInitialize peeks at the body and puts it back.
func isInitialize(r *http.Request) bool {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	var m struct{ Method string }
	return json.Unmarshal(body, &m) == nil && m.Method == "initialize"
}

// get404 answers the standalone GET stream with 404 while sessions live.
func get404(_ *mcp.Server, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			http.Error(w, "Not Found", http.StatusNotFound)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// noDelete refuses DELETE with 405.
func noDelete(_ *mcp.Server, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodDelete {
			w.Header().Set("Allow", "GET, POST")
			http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// modernOnly serves no legacy initialize: it answers as a 2026-07-28-only
// server would, 404 method not found.
func modernOnly(_ *mcp.Server, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && isInitialize(r) {
			var req struct{ ID json.RawMessage }
			body, _ := io.ReadAll(r.Body)
			json.Unmarshal(body, &req)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"method not found"}}`, req.ID)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func TestRunQuirks(t *testing.T) {
	t.Parallel()
	stateful := mcp.StreamableHTTPOptions{SessionTimeout: time.Minute}
	tests := []struct {
		name     string
		opts     mcp.StreamableHTTPOptions
		wrap     func(*mcp.Server, http.Handler) http.Handler
		check    func(t *testing.T, r Report)
		sessions int // left on the server afterwards
	}{
		{"TypeScript example 400", stateful, tsExample, func(t *testing.T, r Report) {
			want(t, r.Era == EraLegacy && r.Stateful && !r.SessionLeft, r)
			want(t, r.UnknownSession == "400 quirk: "+tsNoSession && r.LostAnswer == host.BadRequest, r)
			want(t, strings.HasPrefix(r.GETStream, "200"), r)
			want(t, hasNote(r, "400 instead of the spec's 404") && hasNote(r, "server/discover is not served (status 400)"), r)
		}, 0},
		{"GET 404 on a live session", stateful, get404, func(t *testing.T, r Report) {
			want(t, r.GET404Quirk && r.GETStream == "404 on a live session (quirk)" && !r.SessionLeft, r)
			want(t, strings.HasPrefix(r.UnknownSession, "404 (spec)") && hasNote(r, "reconnects in a loop"), r)
			_, ok := r.Timings[StepPingAfterGET]
			want(t, ok, r)
		}, 0},
		{"no DELETE", stateful, noDelete, func(t *testing.T, r Report) {
			want(t, r.Delete == "405" && r.SessionLeft && hasNote(r, "idle timeout"), r)
			_, pinged := r.Timings[StepPingAfterDelete]
			want(t, !pinged, r)
		}, 1},
		{"2026-07-28 only", mcp.StreamableHTTPOptions{Stateless: true}, modernOnly, func(t *testing.T, r Report) {
			want(t, r.Era == EraModernOnly && !r.Stateful && !r.SessionLeft, r)
			want(t, hasNote(r, "initialize is not served"), r)
		}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newSDKServer(t, tt.opts, tt.wrap)
			r, err := Run(testCtx(t), newClient(t, s.http.URL))
			if err != nil {
				t.Fatalf("Run: %v; notes %q", err, r.Notes)
			}
			tt.check(t, r)
			waitSessions(t, s.srv, tt.sessions)
		})
	}
}

func want(t *testing.T, ok bool, r Report) {
	t.Helper()
	if !ok {
		b, _ := json.MarshalIndent(r, "", "  ")
		t.Fatalf("unexpected report:\n%s", b)
	}
}

func hasNote(r Report, phrase string) bool {
	for _, n := range r.Notes {
		if strings.Contains(n, phrase) {
			return true
		}
	}
	return false
}
