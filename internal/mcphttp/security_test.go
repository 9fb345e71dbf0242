package mcphttp

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/mask"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// idCounter counts the requests that reach a server and those that carry
// a session id, in the header or anywhere in the URL.
type idCounter struct {
	mu          sync.Mutex
	all, withID int
}

func (c *idCounter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.mu.Lock()
	c.all++
	if r.Header.Get(HeaderSessionID) != "" || strings.Contains(r.URL.RawQuery, "sid") {
		c.withID++
	}
	c.mu.Unlock()
	w.WriteHeader(http.StatusTeapot)
}

func (c *idCounter) counts() (all, withID int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.all, c.withID
}

// TestSecurityRedirectAfterInitialize: a server that hands out a session
// and then redirects every request carrying it to another origin, with
// the id in the new URL (as a sticky load balancer might). No request
// with the id, and no request at all, reaches that origin, and the reason
// that goes to journals and notifications shows the id masked.
func TestSecurityRedirectAfterInitialize(t *testing.T) {
	t.Parallel()
	other := &idCounter{}
	hs2 := httptest.NewServer(other)
	t.Cleanup(hs2.Close)
	for _, code := range []int{http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		t.Run(fmt.Sprint(code), func(t *testing.T) {
			t.Parallel()
			var moved atomic.Bool // set once the session is set up
			s := newSDKServer(t, mcp.StreamableHTTPOptions{SessionTimeout: time.Minute}, func(next http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if sid := r.Header.Get(HeaderSessionID); sid != "" && moved.Load() {
						http.Redirect(w, r, hs2.URL+"/mcp?sid="+url.QueryEscape(sid), code)
						return
					}
					next.ServeHTTP(w, r)
				})
			})
			c := newClient(t, s.http.URL+"/mcp", nil)
			sid, pv := initialize(t, c)
			if sid == "" {
				t.Fatal("the server issued no session id")
			}
			moved.Store(true)
			ctx := testCtx(t)
			calls := map[string]func() (Response, error){
				"ping": func() (Response, error) { return c.Ping(ctx, sid, pv) },
				"call": func() (Response, error) {
					return c.Do(ctx, Request{Method: "tools/list", SessionID: sid, ProtocolVersion: pv})
				},
				"delete": func() (Response, error) { return c.DeleteVersion(ctx, sid, pv) },
				"stream": func() (Response, error) { return c.OpenStream(ctx, sid, pv) },
			}
			for name, call := range calls {
				resp, err := call()
				if err != nil || resp.Status != code {
					t.Fatalf("%s: status %d, err %v; want the %d handed back", name, resp.Status, err, code)
				}
				cl := Judge(resp, err)
				if cl.Verdict != Redirect {
					t.Errorf("%s: verdict %v %q", name, cl.Verdict, cl.Reason)
				}
				if strings.Contains(cl.Reason, sid) || !strings.Contains(cl.Reason, mask.ID(sid)) {
					t.Errorf("%s: reason %q does not mask the session id", name, cl.Reason)
				}
			}
			if all, withID := other.counts(); all != 0 || withID != 0 {
				t.Fatalf("the other origin received %d requests, %d with the session id", all, withID)
			}
		})
	}
}

// TestSecurityEchoedHeaderValuesHidden: a server that echoes the request's
// headers in its error bodies does not get the configured header values
// (secrets from ${ENV}) into the reasons that journals, notifications and
// the probe print.
func TestSecurityEchoedHeaderValuesHidden(t *testing.T) {
	t.Parallel()
	const token, key = "tok-5f2b9c1e7d3a4b6c", "key-0a1b2c3d4e5f6a7b"
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var b strings.Builder
		for _, k := range []string{"Authorization", "X-Nmem-Api-Key", HeaderSessionID} {
			fmt.Fprintf(&b, "%s=%s ", k, r.Header.Get(k))
		}
		switch r.URL.Path {
		case "/400":
			http.Error(w, "bad request: "+b.String(), http.StatusBadRequest)
		case "/404":
			http.Error(w, "session not found: "+b.String(), http.StatusNotFound)
		case "/200":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":"watchdog-1","error":{"code":-32000,"message":"session invalid: %s"}}`, b.String())
		default:
			http.Error(w, "teapot: "+b.String(), http.StatusTeapot)
		}
	}))
	t.Cleanup(hs.Close)
	const sid = "sess-9f8e7d6c5b4a39281706"
	for _, path := range []string{"/400", "/404", "/200", "/418"} {
		c := newClient(t, hs.URL+path, func(o *Options) {
			o.Headers = map[string]string{"Authorization": "Bearer " + token, "X-NMEM-API-Key": key}
		})
		resp, err := c.Ping(testCtx(t), sid, "")
		if err != nil || !strings.Contains(string(resp.Body), token) && resp.RPC == nil {
			t.Fatalf("%s: the server did not echo (err %v, body %q)", path, err, resp.Body)
		}
		reason := Judge(resp, err).Reason
		for _, secret := range []string{token, key, sid} {
			if strings.Contains(reason, secret) {
				t.Errorf("%s: reason %q prints %q", path, reason, secret)
			}
		}
		if red := resp.Redact(string(resp.Body)); strings.Contains(red, token) || strings.Contains(red, key) || strings.Contains(red, sid) {
			t.Errorf("%s: Redact(body) = %q", path, red)
		}
	}
}

// TestRedactHeaderValues: each configured value is hidden whole and, for a
// "scheme credential" value, the credential alone; values too short to be
// a credential are left, so a server's ordinary words survive.
func TestRedactHeaderValues(t *testing.T) {
	t.Parallel()
	resp := Response{secrets: secretsOf(map[string]string{
		"Authorization": "Bearer tok-5f2b9c1e", "X-Mode": "json", "X-Key": "k3y-0a1b2c3d"}),
		sentSession: "sess-0123456789abcdef"}
	tests := []struct{ in, want string }{
		{"got Bearer tok-5f2b9c1e", "got [redacted]"},
		{"token tok-5f2b9c1e is bad", "token [redacted] is bad"},
		{"key=k3y-0a1b2c3d;", "key=[redacted];"},
		{"want json", "want json"},
		{"session sess-0123456789abcdef", "session sess…cdef"},
	}
	for _, tt := range tests {
		if got := resp.Redact(tt.in); got != tt.want {
			t.Errorf("Redact(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
