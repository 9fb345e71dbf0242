package proxy_test

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/mcpwatchdog/watchdog/healer/proxy"
	"github.com/mcpwatchdog/watchdog/internal/demoserver"
	"github.com/mcpwatchdog/watchdog/internal/testbed/otheruser"
)

func TestMain(m *testing.M) {
	otheruser.Main()
	os.Exit(m.Run())
}

const ownerToken = "Bearer the-owners-token"

// recorder is the real Go SDK server behind a front that writes down the
// Authorization of every request that reaches it.
type recorder struct {
	url  string
	mu   sync.Mutex
	seen []string
}

func startRecorder(t *testing.T) *recorder {
	t.Helper()
	srv := startServer(t, demoserver.Options{})
	target, _ := url.Parse(strings.TrimSuffix(srv.URL(), "/mcp"))
	rp := httputil.NewSingleHostReverseProxy(target)
	rec := &recorder{}
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec.mu.Lock()
		rec.seen = append(rec.seen, r.Header.Get("Authorization"))
		rec.mu.Unlock()
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	rec.url = front.URL + "/mcp"
	return rec
}

func (r *recorder) requests() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.seen...)
}

// rawPost is an initialize as bytes on the wire, for a client that is not
// this process.
func rawPost(addr, path string) string {
	return fmt.Sprintf("POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"+
		"Content-Length: %d\r\nConnection: close\r\n\r\n%s", path, addr, len(initBody), initBody)
}

// The measurement of the issue: a process of another local user reached
// the proxy and the server got the owner's token. Now its connections are
// closed before a byte is read, the server sees nothing of them, the
// proxy reports each by its uid, and the owner is served.
func TestOtherUserRefused(t *testing.T) {
	onTransports(t, otherUserRefused)
}

func otherUserRefused(t *testing.T, tr transport) {
	other := otheruser.New(t)
	rec := startRecorder(t)
	px := tr.start(t, proxy.Options{Upstream: rec.url, Headers: map[string]string{"Authorization": ownerToken}})
	path := strings.TrimPrefix(px.url, "http://"+px.addr)
	for range 2 {
		if got := other.Dial("tcp", px.addr, rawPost(px.addr, path)); !strings.HasPrefix(got, "closed") {
			t.Errorf("uid %d's request: %s; want its connection closed unanswered", otheruser.UID, got)
		}
	}
	waitFor(t, "both refusals reported", func() bool { return len(px.of(proxy.EvRefused)) == 2 })
	for _, ev := range px.of(proxy.EvRefused) {
		if ev.UID != otheruser.UID || ev.Server != "mem" || !strings.Contains(ev.Detail, fmt.Sprint(otheruser.UID)) {
			t.Errorf("refusal %+v; want uid %d of server mem, named in the detail", ev, otheruser.UID)
		}
	}
	if seen := rec.requests(); len(seen) != 0 {
		t.Fatalf("the server saw %d requests of the other user (Authorization %q)", len(seen), seen)
	}
	rawSession(t, px.url)
	seen := rec.requests()
	if len(seen) == 0 || seen[0] != ownerToken {
		t.Errorf("the owner's call reached the server with %q; want it served with the config's header", seen)
	}
	tr.served(t, px)
}

// A request without the proxy's secret path is not found, and nothing of
// it, the configured header least of all, goes upstream.
func TestSecretPathRequired(t *testing.T) {
	onTransports(t, secretPathRequired)
}

// No path check here: a request off the secret path is refused before
// either path serves it, on both rows.
func secretPathRequired(t *testing.T, tr transport) {
	rec := startRecorder(t)
	px := tr.start(t, proxy.Options{Upstream: rec.url, Headers: map[string]string{"Authorization": ownerToken}})
	base := "http://" + px.addr
	for _, tc := range []struct{ name, path string }{
		{"no secret", "/mcp"},
		{"the root", "/"},
		{"a wrong secret", "/" + proxy.NewSecret() + "/mcp"},
		{"the secret in lower case", "/" + strings.ToLower(px.secret) + "/mcp"},
		{"the secret cut short", "/" + px.secret[:len(px.secret)-1] + "/mcp"},
		{"the secret and more", "/" + px.secret + "X/mcp"},
		{"the secret alone", "/" + px.secret},
		{"the secret, another endpoint", "/" + px.secret + "/sse"},
		{"the secret, below the endpoint", "/" + px.secret + "/mcp/x"},
		{"the secret as a query", "/mcp?" + px.secret},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := post(t, base+tc.path, "", initBody)
			_, _ = io.Copy(io.Discard, resp.Body)
			if resp.StatusCode != http.StatusNotFound {
				t.Errorf("%s answered %d, want 404", tc.path, resp.StatusCode)
			}
		})
	}
	if seen := rec.requests(); len(seen) != 0 {
		t.Errorf("the server saw %d requests without the secret", len(seen))
	}
}

// A request with an Origin comes from a web page: 403 and nothing goes
// upstream, unless the Origin is the proxy's own loopback address, which
// no page can have (the proxy serves none, and a rebound name is not
// loopback) and which the conformance suite's DNS rebinding check sends
// as the valid case.
func TestForeignOriginsRefused(t *testing.T) {
	onTransports(t, foreignOriginsRefused)
}

// No path check here: the fast path hands every request that carries an
// Origin to the general path (fasthead.go), so none is served fast on
// either row.
func foreignOriginsRefused(t *testing.T, tr transport) {
	rec := startRecorder(t)
	px := tr.start(t, proxy.Options{Upstream: rec.url, Headers: map[string]string{"Authorization": ownerToken}})
	_, port, _ := net.SplitHostPort(px.addr)
	for _, origin := range []string{"https://evil.example", "http://127.0.0.1:8080", "https://" + px.addr, "http://localhost",
		"http://[::1]:3000", "null", "", "http://evil.example:" + port, "http://" + px.addr + "/path", "http://user@" + px.addr} {
		t.Run(origin, func(t *testing.T) {
			resp := post(t, px.url, "", initBody, "Origin", origin)
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != http.StatusForbidden || !strings.Contains(string(body), "web page") {
				t.Errorf("Origin %q: %d %q; want 403 saying it came from a web page", origin, resp.StatusCode, body)
			}
		})
	}
	if seen := rec.requests(); len(seen) != 0 {
		t.Errorf("the server saw %d requests of web pages", len(seen))
	}
	for _, origin := range []string{"http://" + px.addr, "http://localhost:" + port, "http://LOCALHOST:" + port} {
		resp := post(t, px.url, "", initBody, "Origin", origin)
		_, _ = io.Copy(io.Discard, resp.Body)
		if resp.StatusCode == http.StatusForbidden {
			t.Errorf("Origin %q, the proxy's own: 403", origin)
		}
	}
}
