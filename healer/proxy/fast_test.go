package proxy_test

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/healer/proxy"
	"github.com/mcpwatchdog/watchdog/internal/demoserver"
	"github.com/mcpwatchdog/watchdog/internal/testbed/bench/loadgen"
)

// generalSince is how many requests took the general path since before,
// by reason (only those that did).
func generalSince(before, now proxy.Paths) map[string]uint64 {
	out := map[string]uint64{}
	for why, n := range now.General {
		if d := n - before.General[why]; d > 0 {
			out[why] = d
		}
	}
	return out
}

// A host's calls take the fast path, against both real servers: every
// initialize, notification and tool call of raw sessions, and the POSTs of
// the Go SDK's client (whose GET stream and DELETE take the general path,
// counted as such).
func TestHostsCallOnTheFastPath(t *testing.T) {
	for _, name := range []string{"go-sdk", "mcp-go"} {
		t.Run(name+", raw sessions", func(t *testing.T) {
			srv, err := loadgen.Start(t.Context(), name)
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			px := startProxy(t, proxy.Options{Upstream: srv.URL()})
			const sessions = 4
			ss, err := loadgen.Open(t.Context(), loadgen.Client(sessions), px.url, sessions, sessions)
			if err != nil {
				t.Fatal(err)
			}
			r, err := ss.Run(t.Context(), 200*time.Millisecond)
			if err != nil {
				t.Fatal(err)
			}
			got := px.Paths()
			// A call the end of the run cut off counts at the proxy, not in r.
			if want := uint64(r.Calls + 2*sessions); got.Fast < want || got.Fast > want+sessions || len(generalSince(proxy.Paths{}, got)) != 0 {
				t.Errorf("fast %d, general %v; want all %d requests (initialize, notifications/initialized, %d calls) fast",
					got.Fast, generalSince(proxy.Paths{}, got), want, r.Calls)
			}
			if n := srv.Accepted(); n > 2*sessions+1 {
				t.Errorf("the server accepted %d connections for %d sessions: want them kept", n, sessions)
			}
		})
	}
	t.Run("the Go SDK client", func(t *testing.T) {
		srv := startServer(t, demoserver.Options{})
		px := startProxy(t, proxy.Options{Upstream: srv.URL()})
		cs := connect(t, px.url)
		for range 5 {
			count(t, cs)
		}
		got := px.Paths()
		if got.Fast < 8 { // server/discover, initialize, notifications/initialized, 5 calls
			t.Errorf("%d requests on the fast path, want at least the 8 POSTs", got.Fast)
		}
		for why := range generalSince(proxy.Paths{}, got) {
			if why != "method" && why != "connection" { // GET streams, DELETE
				t.Errorf("a request took the general path for %q: %v", why, got.General)
			}
		}
	})
}

// rawExchange sends one request as written on a fresh connection and
// reads the answer's status and body.
func rawExchange(t *testing.T, addr, request string) (int, string) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	go func() { _, _ = io.WriteString(c, request) }() // the proxy may answer before it has read all
	resp, err := readFinal(bufio.NewReader(c))
	if err != nil {
		t.Fatalf("no answer to %.80q: %v", request, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// readFinal reads an answer, past any 1xx before it.
func readFinal(br *bufio.Reader) (*http.Response, error) {
	for {
		resp, err := http.ReadResponse(br, nil)
		if err != nil || resp.StatusCode >= 200 {
			return resp, err
		}
	}
}

// Requests the fast path does not take go to the general path, which
// answers them as before, and the counter says why.
func TestUnusualRequestsTakeTheGeneralPath(t *testing.T) {
	srv := startServer(t, demoserver.Options{})
	px := startProxy(t, proxy.Options{Upstream: srv.URL(), MaxRequest: 64 << 10})
	id := rawSession(t, px.url)
	path := "/" + px.secret + "/mcp"
	call := countCall
	head := func(method, target, proto, extra string) string {
		return fmt.Sprintf("%s %s %s\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"+
			"Mcp-Session-Id: %s\r\nMcp-Protocol-Version: 2025-06-18\r\n%s", method, target, proto, px.addr, id, extra)
	}
	withLength := func(extra string) string {
		return head("POST", path, "HTTP/1.1", extra+"Content-Length: "+strconv.Itoa(len(call))+"\r\n\r\n") + call
	}
	chunked := fmt.Sprintf("%x\r\n%s\r\n0\r\n\r\n", len(call), call)
	for _, tc := range []struct {
		name    string
		request string
		status  int
		why     string // "": the fast path
	}{
		{"a plain call", withLength("Connection: close\r\n"), 200, ""},
		{"its own Origin", withLength("Origin: http://" + px.addr + "\r\n"), 200, ""},
		{"a chunked upload", head("POST", path, "HTTP/1.1", "Transfer-Encoding: chunked\r\n\r\n") + chunked, 200, "framing"},
		{"Expect: 100-continue", withLength("Expect: 100-continue\r\n"), 200, "framing"},
		{"over the size limit", head("POST", path, "HTTP/1.1", "Content-Length: 70000\r\n\r\n") + strings.Repeat(" ", 70000), 413, "framing"},
		{"HTTP/1.0", head("POST", path, "HTTP/1.0", "Content-Length: "+strconv.Itoa(len(call))+"\r\n\r\n") + call, 200, "version"},
		{"a query after the path", head("POST", path+"?x=1", "HTTP/1.1", "Content-Length: "+strconv.Itoa(len(call))+"\r\n\r\n") + call, 200, "target"},
		{"no secret", head("POST", "/mcp", "HTTP/1.1", "Content-Length: "+strconv.Itoa(len(call))+"\r\n\r\n") + call, 404, "target"},
		{"a web page's Origin", withLength("Origin: https://evil.example\r\n"), 403, "guard"},
		{"Connection naming a header", withLength("Connection: X-Trace\r\nX-Trace: 1\r\n"), 200, "header"},
		{"a repeated session header", withLength("Mcp-Session-Id: " + id + "\r\n"), 200, "header"},
		{"a head over the read buffer", withLength("X-Big: " + strings.Repeat("b", 9<<10) + "\r\n"), 200, "head_size"},
		{"a GET without a session", fmt.Sprintf("GET %s HTTP/1.1\r\nHost: %s\r\nAccept: text/event-stream\r\nConnection: close\r\n\r\n", path, px.addr), 0, "method"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := px.Paths()
			status, body := rawExchange(t, px.addr, tc.request)
			if tc.status == 0 { // the server's own answer, passed on: not the proxy's to say
				tc.status = status
			}
			if status != tc.status {
				t.Errorf("status %d, want %d: %.200s", status, tc.status, body)
			}
			got := px.Paths()
			general := generalSince(before, got)
			switch {
			case tc.why == "" && (got.Fast != before.Fast+1 || len(general) != 0):
				t.Errorf("fast %d → %d, general %v: want it on the fast path", before.Fast, got.Fast, general)
			case tc.why != "" && (got.Fast != before.Fast || !maps.Equal(general, map[string]uint64{tc.why: 1})):
				t.Errorf("fast %d → %d, general %v: want it on the general path for %q", before.Fast, got.Fast, general, tc.why)
			}
		})
	}
}

// A connection given to the general path stays there: its later requests
// are served and counted as such.
func TestGivenConnectionServedOn(t *testing.T) {
	srv := startServer(t, demoserver.Options{})
	px := startProxy(t, proxy.Options{Upstream: srv.URL()})
	id := rawSession(t, px.url)
	c, err := net.Dial("tcp", px.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	br := bufio.NewReader(c)
	call := countCall
	before := px.Paths()
	for i, extra := range []string{"Expect: 100-continue\r\n", "", ""} {
		fmt.Fprintf(c, "POST /%s/mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"+
			"Mcp-Session-Id: %s\r\n%sContent-Length: %d\r\n\r\n%s", px.secret, px.addr, id, extra, len(call), call)
		resp, err := readFinal(br)
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("call %d: %d", i, resp.StatusCode)
		}
	}
	got := generalSince(before, px.Paths())
	if !maps.Equal(got, map[string]uint64{"framing": 1, "connection": 2}) {
		t.Errorf("general %v, want the first for framing and the two after it for the connection", got)
	}
	if srv.Count() != 3 {
		t.Errorf("the tool ran %d times, want 3", srv.Count())
	}
}

// rchar is this process's bytes read by read(2) and the like
// (/proc/self/io); splice(2) does not count there.
func rchar(t *testing.T) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/io")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "rchar: "); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	t.Fatal("no rchar in /proc/self/io")
	return 0
}

// A large answer goes from the server's socket to the host's in the
// kernel (splice), whole, on both servers' framings: mcp-go's known length
// and the Go SDK's chunked SSE. What this process read through read(2)
// shows it: the host's end and the server's end read the text once each,
// the proxy its request (which it keeps, to send again after a loss) but
// not the answer.
func TestLargeAnswersSpliced(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("splice(2) is Linux's; elsewhere the answer is copied")
	}
	const size = 2 << 20
	text := strings.Repeat("0123456789abcdef", size/16)
	for _, name := range []string{"mcp-go", "go-sdk"} {
		t.Run(name, func(t *testing.T) {
			srv, err := loadgen.Start(t.Context(), name)
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			px := startProxy(t, proxy.Options{Upstream: srv.URL()})
			id := rawSession(t, px.url)
			body := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + text + `"}}}`
			before, fast := rchar(t), px.Paths().Fast
			resp := post(t, px.url, id, body)
			got, err := io.ReadAll(resp.Body)
			read := rchar(t) - before
			if err != nil || resp.StatusCode != 200 || !strings.Contains(string(got), text) {
				t.Fatalf("status %d, %d bytes (%v): want the text echoed whole", resp.StatusCode, len(got), err)
			}
			if px.Paths().Fast != fast+1 {
				t.Errorf("the call did not take the fast path")
			}
			// The request read twice (the server, the proxy, which keeps it
			// to send again after a loss) and the answer once (the host's
			// end); the answer copied through the proxy is a second time.
			spliced := int64(2*len(body) + len(got))
			if read > spliced+int64(len(got))/2 {
				t.Errorf("%d bytes read through read(2), want about %d (request twice, answer once): the answer was copied, not spliced", read, spliced)
			}
			t.Logf("figure: %d bytes read through read(2) for a %d-byte request and a %d-byte answer", read, len(body), len(got))
		})
	}
}
