package proxy_test

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/healer/proxy"
	"github.com/mcpwatchdog/watchdog/internal/demoserver"
)

// rawHost is a host's one kept connection to the proxy, written by hand.
type rawHost struct {
	c  net.Conn
	br *bufio.Reader
	px *running
}

func dialHost(t *testing.T, px *running) *rawHost {
	t.Helper()
	c, err := net.Dial("tcp", px.addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	_ = c.SetDeadline(time.Now().Add(20 * time.Second))
	return &rawHost{c: c, br: bufio.NewReader(c), px: px}
}

// get is a GET of target without a body, as hosts send them.
func (h *rawHost) get(target string) string {
	return fmt.Sprintf("GET %s HTTP/1.1\r\nHost: %s\r\nAccept: */*\r\n\r\n", target, h.px.addr)
}

// call is a tools/call on session id.
func (h *rawHost) call(id string) string {
	return fmt.Sprintf("POST /%s/mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"+
		"Mcp-Session-Id: %s\r\nMcp-Protocol-Version: 2025-06-18\r\nContent-Length: %d\r\n\r\n%s", h.px.secret, h.px.addr, id, len(countCall), countCall)
}

// send writes request in pieces of at most piece bytes, pause apart.
func (h *rawHost) send(t *testing.T, request string, piece int, pause time.Duration) {
	t.Helper()
	for len(request) > 0 {
		n := min(piece, len(request))
		if _, err := io.WriteString(h.c, request[:n]); err != nil {
			t.Fatal(err)
		}
		if request = request[n:]; len(request) > 0 {
			time.Sleep(pause)
		}
	}
}

// answer reads the next answer whole: its status.
func (h *rawHost) answer(t *testing.T) int {
	t.Helper()
	resp, err := readFinal(h.br)
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		t.Fatalf("the answer's body: %v", err)
	}
	return resp.StatusCode
}

// A request the fast path does not take, without a body (a GET), costs
// its connection the fast path for that request only: the calls a host
// sends on it next take the fast path. mcp-remote asks for OAuth metadata
// (404s) and the server's GET without a session on connections it then
// sends its calls on; which one a call found idle was a matter of timing,
// and on a busy machine every call of it went to the general path. The
// second call's head comes in pieces, apart.
func TestCallsAfterAGetTakeTheFastPath(t *testing.T) {
	srv := startServer(t, demoserver.Options{})
	px := startProxy(t, proxy.Options{Upstream: srv.URL()})
	id := rawSession(t, px.url)
	h := dialHost(t, px)
	before := px.Paths()
	for _, target := range []string{"/.well-known/oauth-protected-resource/" + px.secret + "/mcp", "/" + px.secret + "/mcp"} {
		h.send(t, h.get(target), 1<<10, 0)
		if status := h.answer(t); status/100 == 2 {
			t.Fatalf("GET %s: %d, want a refusal", target, status)
		}
	}
	h.send(t, h.call(id), 1<<10, 0)
	if status := h.answer(t); status != http.StatusOK {
		t.Fatalf("the first call: %d", status)
	}
	h.send(t, h.call(id), 40, 20*time.Millisecond)
	if status := h.answer(t); status != http.StatusOK {
		t.Fatalf("the call sent in pieces: %d", status)
	}
	got := px.Paths()
	if general := generalSince(before, got); got.Fast != before.Fast+2 || !maps.Equal(general, map[string]uint64{"method": 2}) {
		t.Errorf("fast %d → %d, general %v: want the GETs on the general path, the calls after them on the fast path",
			before.Fast, got.Fast, general)
	}
	if n := srv.Count(); n != 2 {
		t.Errorf("the tool ran %d times, want 2", n)
	}
}

// slowGets fronts srv: its GETs are answered after wait, or end when
// their request does (ended hears of it).
func slowGets(t *testing.T, srv *demoserver.Server, wait time.Duration, ended chan<- struct{}) string {
	t.Helper()
	target, _ := url.Parse(strings.TrimSuffix(srv.URL(), "/mcp"))
	rp := httputil.NewSingleHostReverseProxy(target)
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			select {
			case <-time.After(wait):
			case <-r.Context().Done():
				ended <- struct{}{}
				return
			}
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	return front.URL + "/mcp"
}

// A call a host sends while the general path still serves its GET on the
// same connection (pipelined) is answered after it, in order, and
// on the fast path.
func TestCallBehindAGetTakesTheFastPath(t *testing.T) {
	srv := startServer(t, demoserver.Options{})
	px := startProxy(t, proxy.Options{Upstream: slowGets(t, srv, 300*time.Millisecond, make(chan struct{}, 1))})
	id := rawSession(t, px.url)
	h := dialHost(t, px)
	before := px.Paths()
	h.send(t, h.get("/"+px.secret+"/mcp"), 1<<10, 0)
	time.Sleep(100 * time.Millisecond) // the GET is read alone, and waits on the server
	h.send(t, h.call(id), 1<<10, 0)
	if status := h.answer(t); status/100 == 2 {
		t.Fatalf("the GET without a session: %d, want a refusal", status)
	}
	if status := h.answer(t); status != http.StatusOK {
		t.Fatalf("the call behind it: %d", status)
	}
	got := px.Paths()
	if general := generalSince(before, got); got.Fast != before.Fast+1 || !maps.Equal(general, map[string]uint64{"method": 1}) {
		t.Errorf("fast %d → %d, general %v: want the GET on the general path, the call on the fast path", before.Fast, got.Fast, general)
	}
	if n := srv.Count(); n != 1 {
		t.Errorf("the tool ran %d times, want 1", n)
	}
}

// A host that goes away while the general path serves its GET ends the
// server's request, as net/http's own connections do.
func TestHostGoneDuringAGetEndsIt(t *testing.T) {
	srv := startServer(t, demoserver.Options{})
	ended := make(chan struct{}, 1)
	px := startProxy(t, proxy.Options{Upstream: slowGets(t, srv, time.Minute, ended)})
	h := dialHost(t, px)
	h.send(t, h.get("/"+px.secret+"/mcp"), 1<<10, 0)
	time.Sleep(200 * time.Millisecond) // the GET waits on the server
	_ = h.c.Close()
	select {
	case <-ended:
	case <-time.After(5 * time.Second):
		t.Fatal("the server's GET went on after its host went away")
	}
}
