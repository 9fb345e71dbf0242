package proxy_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/healer/proxy"
	"github.com/mcpwatchdog/watchdog/internal/demoserver"
)

// A host that sends its next requests before the answer to the first
// (pipelining, which HTTP/1.1 allows): the fast path leaves each answer's
// last write to the connection's next read, and a request already read
// whole needs none, so the answer must go before the next one is served.
// Each comes back whole and in order: two calls on the fast path, then a
// request the general path answers (the connection handed over with the
// answer before it sent).
func TestPipelinedRequestsAnsweredInOrder(t *testing.T) {
	srv := startServer(t, demoserver.Options{})
	px := startProxy(t, proxy.Options{Upstream: srv.URL()})
	id := rawSession(t, px.url)
	u, err := url.Parse(px.url)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var reqs strings.Builder
	for i := 1; i <= 2; i++ {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"count","arguments":{}}}`, i)
		fmt.Fprintf(&reqs, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"+
			"Mcp-Session-Id: %s\r\nMcp-Protocol-Version: 2025-06-18\r\nContent-Length: %d\r\n\r\n%s", u.Path, u.Host, id, len(body), body)
	}
	fmt.Fprintf(&reqs, "GET /not-the-proxy HTTP/1.1\r\nHost: %s\r\n\r\n", u.Host)
	if _, err := io.WriteString(conn, reqs.String()); err != nil { // one write: all three read at once
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	br := bufio.NewReader(conn)
	for i, want := range []int{http.StatusOK, http.StatusOK, http.StatusNotFound} {
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("answer %d: %v", i+1, err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		switch {
		case err != nil:
			t.Fatalf("answer %d's body: %v", i+1, err)
		case resp.StatusCode != want:
			t.Fatalf("answer %d: %d %s, want %d", i+1, resp.StatusCode, body, want)
		case want == http.StatusOK && !strings.Contains(string(body), fmt.Sprintf(`"id":%d`, i+1)):
			t.Fatalf("answer %d is not the call's of id %d: %s", i+1, i+1, body)
		}
	}
	if n := srv.Count(); n != 2 {
		t.Errorf("the tool ran %d times for 2 calls", n)
	}
	if got := px.Paths().Fast; got < 2 {
		t.Errorf("%d requests took the fast path; want the two calls", got)
	}
}

// A proxy shut down while hosts call in a loop: every call the server ran
// reached its host whole. (The fast path leaves an answer's last write to
// the connection's next read; a connection between two calls is not
// serving one, and closing it then lost the answer left for it.)
func TestShutdownLosesNoAnswer(t *testing.T) {
	srv := startServer(t, demoserver.Options{})
	px := startProxy(t, proxy.Options{Upstream: srv.URL()})
	id := rawSession(t, px.url)
	var answered atomic.Int64
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			hc := &http.Client{Transport: &http.Transport{}}
			defer hc.CloseIdleConnections()
			for callOnce(hc, px.url, id) {
				answered.Add(1)
			}
		})
	}
	waitFor(t, "calls to run", func() bool { return answered.Load() >= 200 })
	px.stop()
	wg.Wait()
	if ran, got := srv.Count(), answered.Load(); int64(ran) != got {
		t.Errorf("the server ran %d calls, the hosts got %d answers: %d lost at the shutdown", ran, got, int64(ran)-got)
	}
}

// callOnce makes one call on hc; false when it did not come back whole.
func callOnce(hc *http.Client, u, session string) bool {
	req, err := hostPost(u, session, countCall)
	if err != nil {
		return false
	}
	resp, err := hc.Do(req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return err == nil && resp.StatusCode == http.StatusOK && strings.Contains(string(body), `"result"`)
}
