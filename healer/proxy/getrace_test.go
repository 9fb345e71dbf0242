package proxy_test

import (
	"context"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/healer/proxy"
	"github.com/mcpwatchdog/watchdog/internal/testbed/tsserver"
)

// gate passes everything to a real server, but holds the first GET it
// gets until release: the moment the proxy has sent the host's GET on the
// upstream session it read, and the server has not answered it yet.
type gate struct {
	url      string
	arrived  chan string // the held GET's upstream session id
	release  chan struct{}
	holdOnce sync.Once
}

func startGate(t *testing.T, upstream string) *gate {
	t.Helper()
	target, err := url.Parse(strings.TrimSuffix(upstream, "/mcp"))
	if err != nil {
		t.Fatal(err)
	}
	g := &gate{arrived: make(chan string, 1), release: make(chan struct{})}
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.FlushInterval = -1 // SSE events as they come
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			g.holdOnce.Do(func() {
				g.arrived <- r.Header.Get("Mcp-Session-Id")
				<-g.release
			})
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	t.Cleanup(g.open)
	g.url = front.URL + "/mcp"
	return g
}

// open lets the held GET go on; safe to call twice.
func (g *gate) open() {
	select {
	case <-g.release:
	default:
		close(g.release)
	}
}

// opened is the answer to a host's GET, or why it got none.
type opened struct {
	resp *http.Response
	err  error
}

// getStream opens the host's GET stream on session; the answer comes on
// the channel when its headers do. The request ends with the test.
func getStream(t *testing.T, u, session string) <-chan opened {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", session)
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	out := make(chan opened, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		out <- opened{resp, err}
	}()
	return out
}

// The host's GET stream never meets an upstream session the proxy has
// replaced, and a GET refused with the 400 quirk is healed like a GET 404
// (confirmed by a ping first), never handed to the host: a Go SDK client
// closes on a GET answered 400 ("standalone SSE stream: Bad Request",
// issue 31). Real TypeScript servers, both ways of saying "unknown
// session"; the interleaving forced by holding the GET at the server's door.
func TestGetNeverMeetsAReplacedSession(t *testing.T) {
	for _, mode := range []tsserver.Mode{tsserver.Quirk, tsserver.Stateful} {
		for _, order := range []string{"a call replaced the session while the GET was on its way", "the GET met the loss first"} {
			t.Run(string(mode)+"/"+order, func(t *testing.T) {
				srv := tsserver.Start(t, tsserver.Options{Mode: mode})
				g := startGate(t, srv.URL())
				px := startProxy(t, proxy.Options{Upstream: g.url})
				id := rawSession(t, px.url)
				srv.Forget(t) // as a restart would
				stream := getStream(t, px.url, id)
				if order == "the GET met the loss first" {
					g.open()
				}
				select {
				case <-g.arrived: // the proxy sent the GET on the session it read
				case <-time.After(30 * time.Second):
					t.Fatal("the host's GET never reached the server")
				}
				if order != "the GET met the loss first" {
					if resp := callCount(t, px.url, id); resp.StatusCode != http.StatusOK {
						t.Fatalf("the call after the loss: %d", resp.StatusCode)
					}
					g.open()
				}
				checkStream(t, stream)
				if order == "the GET met the loss first" {
					if resp := callCount(t, px.url, id); resp.StatusCode != http.StatusOK {
						t.Fatalf("the call after the stream's recovery: %d", resp.StatusCode)
					}
				}
				if n := len(px.of(proxy.EvUpstream)); n != 1 {
					t.Errorf("the proxy opened %d upstream sessions for one loss, want 1: the GET and the call share one", n)
				}
				if live, n := srv.Sessions(t), srv.Count(t); len(live) != 1 || n != 1 {
					t.Errorf("the server holds %d sessions and ran the tool %d times, want 1 and 1", len(live), n)
				}
			})
		}
	}
}

// checkStream waits for the host's GET answer: an event stream.
func checkStream(t *testing.T, stream <-chan opened) {
	t.Helper()
	select {
	case o := <-stream:
		if o.err != nil {
			t.Fatalf("the host's GET stream: %v", o.err)
		}
		defer o.resp.Body.Close()
		mt, _, _ := mime.ParseMediaType(o.resp.Header.Get("Content-Type"))
		if o.resp.StatusCode != http.StatusOK || mt != "text/event-stream" {
			body, _ := io.ReadAll(io.LimitReader(o.resp.Body, 512))
			t.Fatalf("the host's GET stream was answered %d %s %q; want 200 text/event-stream", o.resp.StatusCode, mt, body)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the host's GET stream got no answer")
	}
}
