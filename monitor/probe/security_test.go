package probe

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/mcphttp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// issued records the session ids a server handed out.
type issued struct {
	mu  sync.Mutex
	ids map[string]bool
}

func (s *issued) add(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ids == nil {
		s.ids = map[string]bool{}
	}
	s.ids[id] = true
}

func (s *issued) has(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ids[id]
}

func (s *issued) list() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for id := range s.ids {
		out = append(out, id)
	}
	return out
}

// recordIssued wraps next so that every Mcp-Session-Id it answers with is
// recorded in ids.
func recordIssued(ids *issued, next http.Handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(&issueRecorder{ResponseWriter: w, ids: ids}, r)
	}
}

type issueRecorder struct {
	http.ResponseWriter
	ids *issued
}

func (w *issueRecorder) WriteHeader(code int) {
	if id := w.Header().Get(mcphttp.HeaderSessionID); id != "" {
		w.ids.add(id)
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *issueRecorder) Write(b []byte) (int, error) {
	if id := w.Header().Get(mcphttp.HeaderSessionID); id != "" {
		w.ids.add(id)
	}
	return w.ResponseWriter.Write(b)
}

func (w *issueRecorder) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// reportTexts is everything `watchdog probe` can print of a report.
func reportTexts(t *testing.T, r Report) string {
	t.Helper()
	js, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var txt bytes.Buffer
	if err := r.WriteText(&txt); err != nil {
		t.Fatal(err)
	}
	return string(js) + "\n" + txt.String()
}

// TestSecurityProbeRedirectsAfterInitialize: a server that issues the
// probe a session, then redirects every request carrying it to another
// origin with the id in the URL. The probe follows none of them: the other
// origin sees no request at all, and the report shows the id nowhere.
func TestSecurityProbeRedirectsAfterInitialize(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	other, withID := 0, 0
	hs2 := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		other++
		if r.Header.Get(mcphttp.HeaderSessionID) != "" {
			withID++
		}
		mu.Unlock()
		w.WriteHeader(http.StatusTeapot)
	}))
	t.Cleanup(hs2.Close)
	ids := &issued{}
	s := newSDKServer(t, mcp.StreamableHTTPOptions{SessionTimeout: time.Minute}, func(_ *mcp.Server, next http.Handler) http.Handler {
		return recordIssued(ids, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if sid := r.Header.Get(mcphttp.HeaderSessionID); ids.has(sid) {
				http.Redirect(w, r, hs2.URL+"/mcp?sid="+url.QueryEscape(sid), http.StatusTemporaryRedirect)
				return
			}
			next.ServeHTTP(w, r)
		}))
	})
	r, _ := Run(testCtx(t), newClient(t, s.http.URL))
	sids := ids.list()
	if len(sids) == 0 {
		t.Fatalf("the server issued the probe no session; notes %q", r.Notes)
	}
	mu.Lock()
	defer mu.Unlock()
	if other != 0 || withID != 0 {
		t.Fatalf("the other origin received %d requests, %d with a session id", other, withID)
	}
	out := reportTexts(t, r)
	for _, sid := range sids {
		if strings.Contains(out, sid) {
			t.Fatalf("the report shows the full session id %q:\n%s", sid, out)
		}
	}
	if !strings.Contains(out, "redirect") {
		t.Fatalf("the report does not say the server redirects:\n%s", out)
	}
}

// TestSecurityProbeHidesEchoedSecrets: a server that echoes the request's
// headers into its error bodies (the unknown-session ping, the GET stream,
// DELETE) does not get the configured header values or the probe's
// session id into the report.
func TestSecurityProbeHidesEchoedSecrets(t *testing.T) {
	t.Parallel()
	const token, key = "tok-5f2b9c1e7d3a4b6c", "key-0a1b2c3d4e5f6a7b"
	ids := &issued{}
	echo := func(r *http.Request) string {
		return fmt.Sprintf("Authorization=%s X-NMEM-API-Key=%s Mcp-Session-Id=%s",
			r.Header.Get("Authorization"), r.Header.Get("X-NMEM-API-Key"), r.Header.Get(mcphttp.HeaderSessionID))
	}
	s := newSDKServer(t, mcp.StreamableHTTPOptions{SessionTimeout: time.Minute}, func(_ *mcp.Server, next http.Handler) http.Handler {
		return recordIssued(ids, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			sid := r.Header.Get(mcphttp.HeaderSessionID)
			switch {
			case r.Method == http.MethodGet || r.Method == http.MethodDelete:
				http.Error(w, "refused: "+echo(r), http.StatusTeapot)
			case sid != "" && !ids.has(sid):
				http.Error(w, "Bad Request: No valid session ID provided: "+echo(r), http.StatusBadRequest)
			default:
				next.ServeHTTP(w, r)
			}
		}))
	})
	c, err := mcphttp.New(mcphttp.Options{URL: s.http.URL, Timeout: 10 * time.Second,
		Headers: map[string]string{"Authorization": "Bearer " + token, "X-NMEM-API-Key": key}})
	if err != nil {
		t.Fatal(err)
	}
	r, _ := Run(testCtx(t), c)
	out := reportTexts(t, r)
	if !strings.Contains(out, "refused:") || !strings.Contains(out, "No valid session ID") {
		t.Fatalf("the report does not show the echoing answers, so the test shows nothing:\n%s", out)
	}
	secrets := append([]string{token, key}, ids.list()...)
	for _, secret := range secrets {
		if strings.Contains(out, secret) {
			t.Errorf("the report prints %q:\n%s", secret, out)
		}
	}
}
