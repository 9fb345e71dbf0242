package daemon_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/demoserver"
	"github.com/mcpwatchdog/watchdog/internal/testbed/daemontest"
	"github.com/mcpwatchdog/watchdog/internal/testbed/otheruser"
)

// authSeen is the real Go SDK server behind a front that writes down the
// Authorization of every request reaching it.
type authSeen struct {
	mu   sync.Mutex
	seen []string
}

func (a *authSeen) list() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.seen...)
}

func startAuthSeen(t *testing.T) (*authSeen, string) {
	t.Helper()
	srv, err := demoserver.Start(context.Background(), demoserver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	target, _ := url.Parse(strings.TrimSuffix(srv.URL(), "/mcp"))
	rp := httputil.NewSingleHostReverseProxy(target)
	a := &authSeen{}
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		a.seen = append(a.seen, r.Header.Get("Authorization"))
		a.mu.Unlock()
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	return a, front.URL + "/mcp"
}

// The measurement, at the daemon: a server entry with an
// Authorization header and a proxy. Another user's two requests to the
// proxy and a scrape of the metrics are closed unanswered, the server never
// sees them (nor the token), the journal has one warning per listener
// naming that uid, and the owner is served; status gives the URL with the
// secret, which the journal never holds.
func TestDaemonServesItsOwnerOnly(t *testing.T) {
	t.Parallel()
	other := otheruser.New(t)
	seen, upstream := startAuthSeen(t)
	dir := t.TempDir()
	listen, metricsAt := daemontest.FreePort(t), daemontest.FreePort(t)
	cfg := daemontest.WriteConfig(t, dir, fmt.Sprintf("metrics_listen = %q\n[host]\nprocess = \"\"\nport = 0\n[[server]]\nname = \"mem\"\nurl = %q\n"+
		"idle_timeout = \"1h\"\nkeep_warm = false\nproxy_listen = %q\nheaders = { Authorization = \"Bearer owner-token\" }\n", metricsAt, upstream, listen))
	state := filepath.Join(dir, "state")
	startDaemon(t, cfg, state)
	proxyURL := daemontest.ProxyURL(t, state, listen)
	path := strings.TrimPrefix(proxyURL, "http://"+listen)
	for range 2 {
		req := "POST " + path + " HTTP/1.1\r\nHost: " + listen + "\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"
		if got := other.Dial("tcp", listen, req); !strings.HasPrefix(got, "closed") {
			t.Errorf("uid %d's request to the proxy: %s; want it closed unanswered", otheruser.UID, got)
		}
	}
	if got := other.Dial("tcp", metricsAt, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"); !strings.HasPrefix(got, "closed") {
		t.Errorf("uid %d's scrape: %s; want it closed unanswered", otheruser.UID, got)
	}
	// The owner's call comes after both refusals on the proxy's accept loop.
	cs, err := demoserver.Connect(context.Background(), proxyURL, "some-host")
	if err != nil {
		t.Fatalf("the owner through the proxy: %v", err)
	}
	defer cs.Close()
	if got := seen.list(); len(got) == 0 || strings.Join(got, ",") != strings.Repeat("Bearer owner-token,", len(got)-1)+"Bearer owner-token" {
		t.Errorf("the server saw Authorization %q; want only the owner's calls, with the config's token", got)
	}
	// Each refusal is enqueued before the next client is even started, so
	// once the metrics warning is there, every proxy one is too.
	uid := fmt.Sprintf("uid %d", otheruser.UID)
	daemontest.WaitFor(t, 10*time.Second, "the metrics endpoint's warning", func() bool {
		return len(refusalWarnings(t, state, "the metrics endpoint", uid)) == 1
	})
	if got := refusalWarnings(t, state, "the proxy for mem", uid); len(got) != 1 {
		t.Errorf("warnings of the proxy for %s: %q; want exactly one for two connections", uid, got)
	}
	st := status(t, state)
	servers, _ := st["servers"].([]any)
	mem, _ := servers[0].(map[string]any)
	if mem["proxy_url"] != proxyURL {
		t.Errorf("status proxy_url %v, want %s", mem["proxy_url"], proxyURL)
	}
	journal, err := os.ReadFile(filepath.Join(state, "events.jsonl"))
	if secret := strings.Split(proxyURL, "/")[3]; err != nil || strings.Contains(string(journal), secret) {
		t.Errorf("the journal (%v) holds the proxy's secret", err)
	}
}

// refusalWarnings are the journal's warnings of listener refusing uid.
func refusalWarnings(t *testing.T, state, listener, uid string) []string {
	t.Helper()
	var out []string
	for _, ev := range daemontest.Journal(t, state, "warning") {
		if d := ev.Str("detail"); strings.HasPrefix(d, listener+" refused a connection of "+uid+":") {
			out = append(out, d)
		}
	}
	return out
}
