package proxy_test

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/healer/proxy"
	"github.com/mcpwatchdog/watchdog/internal/demoserver"
)

// A server that closes kept connections it finds idle (Node's servers do
// after 5 s): the fast path's next call goes out on a new connection,
// succeeds, and runs once. The front closes them after 50 ms; the call
// comes once the connection has rested long enough to be checked.
func TestServerClosedIdleConnection(t *testing.T) {
	srv := startServer(t, demoserver.Options{})
	target, _ := url.Parse(strings.TrimSuffix(srv.URL(), "/mcp"))
	var accepted, closed atomic.Int64
	front := httptest.NewUnstartedServer(httputil.NewSingleHostReverseProxy(target))
	front.Config.IdleTimeout = 50 * time.Millisecond
	front.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		switch s {
		case http.StateNew:
			accepted.Add(1)
		case http.StateClosed:
			closed.Add(1)
		}
	}
	front.Start()
	defer front.Close()
	px := startProxy(t, proxy.Options{Upstream: front.URL + "/mcp"})
	id := rawSession(t, px.url)
	last := time.Now()
	for i := range 3 {
		before := accepted.Load()
		waitFor(t, "the server to close the kept connection, and the connection to rest", func() bool {
			return closed.Load() == before && time.Since(last) > 150*time.Millisecond
		})
		last = time.Now()
		resp := callCount(t, px.url, id)
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("call %d after the server closed the kept connection: %d %s", i, resp.StatusCode, body)
		}
		if accepted.Load() == before {
			t.Errorf("call %d went out on a connection the server had closed", i)
		}
	}
	if n := srv.Count(); n != 3 {
		t.Errorf("the tool ran %d times for 3 calls", n)
	}
}

// A host's answer to a request of a session the server lost: whoever
// asked is gone with it, so nothing is sent again; the host gets 202 and
// the proxy opens a new session, and the host's next call runs there.
func TestAnswerForALostSession(t *testing.T) {
	onTransports(t, answerForALostSession)
}

func answerForALostSession(t *testing.T, tr transport) {
	srv := startServer(t, demoserver.Options{})
	px := tr.start(t, proxy.Options{Upstream: srv.URL()})
	id := rawSession(t, px.url)
	srv.ForgetAll()
	resp := post(t, px.url, id, `{"jsonrpc":"2.0","id":"srv-1","result":{}}`)
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("the host's answer got %d, want 202", resp.StatusCode)
	}
	rec := px.of(proxy.EvRecovered)
	if len(rec) != 1 || !strings.Contains(rec[0].Detail, "answer was for the old one") {
		t.Fatalf("recoveries %+v; want one saying the answer was for the old session", rec)
	}
	if r := callCount(t, px.url, id); r.StatusCode != http.StatusOK || srv.Count() != 1 {
		t.Errorf("the next call: %d, the tool ran %d times", r.StatusCode, srv.Count())
	}
	tr.served(t, px)
}

// An answer over MaxAnswer is cut: the host gets its start and then the
// end of the connection, never an answer that looks whole; its next call,
// on a new connection, goes through.
func TestAnswerOverTheLimitCut(t *testing.T) {
	onTransports(t, answerOverTheLimitCut)
}

func answerOverTheLimitCut(t *testing.T, tr transport) {
	srv := startServer(t, demoserver.Options{})
	px := tr.start(t, proxy.Options{Upstream: srv.URL(), MaxAnswer: 64 << 10})
	id := rawSession(t, px.url)
	text := strings.Repeat("x", 256<<10)
	resp := post(t, px.url, id, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"`+text+`"}}}`)
	got, err := io.ReadAll(resp.Body)
	if err == nil && strings.Contains(string(got), text) {
		t.Fatalf("the host got the whole %d-byte answer past a limit of 64 KiB", len(got))
	}
	if len(got) > 80<<10 {
		t.Errorf("the host got %d bytes of a cut answer, want at most the limit and its framing", len(got))
	}
	if r := callCount(t, px.url, id); r.StatusCode != http.StatusOK {
		t.Errorf("the next call: %d", r.StatusCode)
	}
	tr.served(t, px)
}
