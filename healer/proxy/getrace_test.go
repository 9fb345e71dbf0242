package proxy_test

import (
	"context"
	"io"
	"mime"
	"net"
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
	onTransports(t, getNeverMeetsAReplacedSession)
}

func getNeverMeetsAReplacedSession(t *testing.T, tr transport) {
	for _, mode := range []tsserver.Mode{tsserver.Quirk, tsserver.Stateful} {
		for _, order := range []string{"a call replaced the session while the GET was on its way", "the GET met the loss first"} {
			t.Run(string(mode)+"/"+order, func(t *testing.T) {
				srv := tsserver.Start(t, tsserver.Options{Mode: mode})
				g := startGate(t, srv.URL())
				px := tr.start(t, proxy.Options{Upstream: g.url})
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
				tr.served(t, px)
			})
		}
	}
}

// checkStream waits for the host's GET answer: an event stream.
func checkStream(t *testing.T, stream <-chan opened) {
	t.Helper()
	streamAnswer(t, stream).Body.Close()
}

// keepStream is checkStream with the stream left open until the test ends:
// the host holds it.
func keepStream(t *testing.T, stream <-chan opened) {
	t.Helper()
	resp := streamAnswer(t, stream)
	t.Cleanup(func() { resp.Body.Close() })
}

// streamAnswer waits for the answer to the host's GET and fails unless it
// opened an event stream.
func streamAnswer(t *testing.T, stream <-chan opened) *http.Response {
	t.Helper()
	select {
	case o := <-stream:
		if o.err != nil {
			t.Fatalf("the host's GET stream: %v", o.err)
		}
		mt, _, _ := mime.ParseMediaType(o.resp.Header.Get("Content-Type"))
		if o.resp.StatusCode != http.StatusOK || mt != "text/event-stream" {
			body, _ := io.ReadAll(io.LimitReader(o.resp.Body, 512))
			o.resp.Body.Close()
			t.Fatalf("the host's GET stream was answered %d %s %q; want 200 text/event-stream", o.resp.StatusCode, mt, body)
		}
		return o.resp
	case <-time.After(30 * time.Second):
		t.Fatal("the host's GET stream got no answer")
	}
	return nil
}

// tcpDoor pipes connections to a real server while open; while shut it
// closes every connection, those already open too (as a server that went
// down does), and reports each one it turned away.
type tcpDoor struct {
	addr    string
	target  string
	mu      sync.Mutex
	shut    bool
	conns   []net.Conn
	refused chan struct{}
}

func startTCPDoor(t *testing.T, target string) *tcpDoor {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	d := &tcpDoor{addr: ln.Addr().String(), target: target, refused: make(chan struct{}, 64)}
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			d.take(c, &wg)
		}
	})
	t.Cleanup(func() {
		ln.Close()
		d.close(true)
		wg.Wait()
	})
	return d
}

func (d *tcpDoor) take(c net.Conn, wg *sync.WaitGroup) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.shut {
		c.Close()
		select {
		case d.refused <- struct{}{}:
		default:
		}
		return
	}
	up, err := net.Dial("tcp", d.target)
	if err != nil {
		c.Close()
		return
	}
	d.conns = append(d.conns, c, up)
	wg.Go(func() { _, _ = io.Copy(up, c); up.Close() })
	wg.Go(func() { _, _ = io.Copy(c, up); c.Close() })
}

// close shuts the door (every connection closed, new ones turned away),
// or opens it again when shut is false.
func (d *tcpDoor) close(shut bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.shut = shut
	if shut {
		for _, c := range d.conns {
			c.Close()
		}
		d.conns = nil
	}
}

// The host's GET stream reconnects while its server restarts: the proxy
// cannot reach the server, and a 502 would close a Go SDK client ("client
// is closing: standalone SSE stream: Bad Gateway", issue 31, 1 of 9 busy
// runs). A GET runs nothing, so the proxy tries it again until the server
// is back, and then heals the session the restart lost.
func TestGetWaitsOutARestart(t *testing.T) {
	onTransports(t, getWaitsOutARestart)
}

func getWaitsOutARestart(t *testing.T, tr transport) {
	srv := tsserver.Start(t, tsserver.Options{Mode: tsserver.Quirk})
	d := startTCPDoor(t, strings.TrimSuffix(strings.TrimPrefix(srv.URL(), "http://"), "/mcp"))
	px := tr.start(t, proxy.Options{Upstream: "http://" + d.addr + "/mcp"})
	id := rawSession(t, px.url)
	d.close(true) // the server goes down...
	srv.Forget(t) // ...and comes back without its sessions
	stream := getStream(t, px.url, id)
	select {
	case <-d.refused: // the proxy's GET met the server down
	case <-time.After(30 * time.Second):
		t.Fatal("the host's GET never tried the server")
	}
	d.close(false)
	checkStream(t, stream)
	if resp := callCount(t, px.url, id); resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Errorf("the call after the restart: %d %s", resp.StatusCode, b)
	}
	if n := len(px.of(proxy.EvUpstream)); n != 1 {
		t.Errorf("the proxy opened %d upstream sessions for one restart, want 1", n)
	}
	tr.served(t, px)
}
