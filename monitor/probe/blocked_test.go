package probe

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/mcphttp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// recorder answers 418 to everything and counts what reached it.
type recorder struct {
	mu sync.Mutex
	n  int
}

func (r *recorder) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	r.mu.Lock()
	r.n++
	r.mu.Unlock()
	w.WriteHeader(http.StatusTeapot)
}

func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.n
}

// TestRunRedirect: the probe stops at a 307 and nothing reaches the target.
func TestRunRedirect(t *testing.T) {
	t.Parallel()
	target := &recorder{}
	hs2 := httptest.NewServer(target)
	t.Cleanup(hs2.Close)
	hs1 := httptest.NewServer(http.RedirectHandler(hs2.URL+"/mcp", http.StatusTemporaryRedirect))
	t.Cleanup(hs1.Close)
	r, err := Run(testCtx(t), newClient(t, hs1.URL))
	if !errors.Is(err, ErrRedirect) || r.Era != EraUnknown || !hasNote(r, hs2.URL) {
		t.Fatalf("err %v, era %q, notes %q", err, r.Era, r.Notes)
	}
	if target.count() != 0 {
		t.Fatalf("the redirect target received %d requests", target.count())
	}
}

// requireKey fronts the SDK handler with an API-key check, as Nowledge Mem
// can.
func requireKey(_ *mcp.Server, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-NMEM-API-Key") != "k" {
			w.Header().Set("WWW-Authenticate", `X-NMEM-API-Key realm="nmem"`)
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func TestRunAuth(t *testing.T) {
	t.Parallel()
	s := newSDKServer(t, mcp.StreamableHTTPOptions{SessionTimeout: time.Minute}, requireKey)
	r, err := Run(testCtx(t), newClient(t, s.http.URL))
	if !errors.Is(err, ErrAuth) || !hasNote(r, "X-NMEM-API-Key") {
		t.Fatalf("without the key: err %v, notes %q", err, r.Notes)
	}
	c, err := mcphttp.New(mcphttp.Options{URL: s.http.URL, Headers: map[string]string{"X-NMEM-API-Key": "k"}})
	if err != nil {
		t.Fatal(err)
	}
	r, err = Run(testCtx(t), c)
	if err != nil || !r.Stateful || r.SessionLeft {
		t.Fatalf("with the key: err %v, stateful %v, left %v, notes %q", err, r.Stateful, r.SessionLeft, r.Notes)
	}
	waitSessions(t, s.srv, 0)
}

func TestRunUnreachable(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + l.Addr().String() + "/mcp"
	l.Close()
	r, err := Run(testCtx(t), newClient(t, url))
	if !errors.Is(err, ErrUnreachable) || r.Era != EraUnknown || len(r.Notes) == 0 {
		t.Fatalf("err %v, era %q, notes %q", err, r.Era, r.Notes)
	}
}

// TestRunInterrupted: cancelled in the middle, the probe still ends its
// session.
func TestRunInterrupted(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(testCtx(t))
	defer cancel()
	cancelOnGET := func(_ *mcp.Server, next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet {
				cancel()
				http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
	s := newSDKServer(t, mcp.StreamableHTTPOptions{SessionTimeout: time.Minute}, cancelOnGET)
	r, err := Run(ctx, newClient(t, s.http.URL))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v", err)
	}
	if r.Delete != "supported" || r.SessionLeft {
		t.Fatalf("DELETE %q, left %v, notes %q", r.Delete, r.SessionLeft, r.Notes)
	}
	if _, ok := r.Timings[StepPingUnknown]; ok {
		t.Fatal("the probe went on after it was cancelled")
	}
	waitSessions(t, s.srv, 0)
}
