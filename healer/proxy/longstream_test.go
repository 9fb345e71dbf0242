package proxy_test

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwatchdog/watchdog/healer/proxy"
)

var streamHold = flag.Duration("stream-hold", 0, "TestLongHeldStream: also hold the stream this long in real time (make test-long-stream: 30m)")

// fakeClock is the proxy's Options.Now, moved by the test.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// A host's GET stream held for 30 minutes: the proxy's clock moves 30
// minutes on while a real stream to the real Go SDK server stays open
// (and, with -stream-hold, real time passes too). The upstream session is
// kept, warm, never released as "host gone", and the server's events
// still reach the host; no server timeout (idle, read, write) cuts it.
func TestLongHeldStream(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "long", Version: "1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "count"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, struct{}, error) {
		return &mcp.CallToolResult{}, struct{}{}, nil
	})
	up, pings := countingUpstream(t, server, nil)
	clock := &fakeClock{now: time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)}
	const idle = time.Second // the proxy's passes run on real time; its judgement on the clock
	px := startProxy(t, proxy.Options{Upstream: up.URL, IdleTimeout: idle, KeepWarm: true, Now: clock.Now})
	id := rawSession(t, px.url)
	o := <-getStream(t, px.url, id)
	if o.err != nil || o.resp.StatusCode != http.StatusOK {
		t.Fatalf("the host's GET stream: %v %v", o.err, o.resp)
	}
	events := sseLines(o.resp)

	clock.advance(30 * time.Minute)
	before := pings.Load()
	waitFor(t, "a keep-warm ping after 30 minutes", func() bool { return pings.Load() > before })
	if *streamHold > 0 {
		time.Sleep(*streamHold) // the real-time variant: the hold is the point
	}
	mcp.AddTool(server, &mcp.Tool{Name: "later"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, struct{}, error) {
		return &mcp.CallToolResult{}, struct{}{}, nil
	})
	waitLine(t, events, "notifications/tools/list_changed")
	if resp := callCount(t, px.url, id); resp.StatusCode != http.StatusOK {
		t.Errorf("a call after 30 minutes: %d", resp.StatusCode)
	}
	if n, m := len(px.of(proxy.EvReleased)), len(px.of(proxy.EvUpstream)); n+m != 0 {
		t.Errorf("%d releases and %d new upstream sessions: the held stream's session must be kept", n, m)
	}
}

// countingUpstream serves server over Streamable HTTP (with opts) and counts
// the pings it is sent.
func countingUpstream(t *testing.T, server *mcp.Server, opts *mcp.StreamableHTTPOptions) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	pings := new(atomic.Int64)
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, opts)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			if bytes.Contains(body, []byte(`"method":"ping"`)) {
				pings.Add(1)
			}
		}
		sdk.ServeHTTP(w, r)
	}))
	t.Cleanup(up.Close)
	return up, pings
}

// sseLines hands on the data lines of a stream as they come.
func sseLines(resp *http.Response) <-chan string {
	out := make(chan string, 16)
	go func() {
		defer close(out)
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				out <- d
			}
		}
	}()
	return out
}

func waitLine(t *testing.T, lines <-chan string, want string) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("the stream ended before %s", want)
			}
			if strings.Contains(l, want) {
				return
			}
		case <-deadline:
			t.Fatalf("no %s on the host's stream", want)
		}
	}
}
