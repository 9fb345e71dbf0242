package proxy_test

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwatchdog/watchdog/healer/proxy"
	"github.com/mcpwatchdog/watchdog/internal/demoserver"
)

// running is a proxy serving on a loopback port until the test ends.
type running struct {
	*proxy.Proxy
	url    string
	addr   string
	secret string
	stop   func()
	mu     sync.Mutex
	events []proxy.Sighting
}

// transport is one of the proxy's two ways of serving a host's request:
// its fast HTTP/1.1 path, or net/http, which it takes when
// proxy.Options.HTTPClient is set. Both run the one heal flow (flow.go);
// the tests of healing, bridging and OAuth run on each (onTransports).
type transport struct {
	name string
	hc   *http.Client // set: no fast path (proxy.Options.HTTPClient)
}

var transports = []transport{{"fast path", nil}, {"net/http", &http.Client{}}}

// onTransports runs test once per transport, as a subtest of its name.
func onTransports(t *testing.T, test func(t *testing.T, tr transport)) {
	t.Helper()
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) { test(t, tr) })
	}
}

// start serves a proxy on this transport (startProxy).
func (tr transport) start(t *testing.T, opts proxy.Options) *running {
	t.Helper()
	return tr.startAt(t, "127.0.0.1:0", opts)
}

// startAt serves a proxy on this transport at addr (startProxyAt).
func (tr transport) startAt(t *testing.T, addr string, opts proxy.Options) *running {
	t.Helper()
	opts.HTTPClient = tr.hc
	return startProxyAt(t, addr, opts)
}

// served checks that px served its hosts' requests on this transport:
// some on the fast path on its row, none on net/http's.
func (tr transport) served(t *testing.T, px *running) {
	t.Helper()
	if fast := px.Paths().Fast; (tr.hc == nil) != (fast > 0) {
		t.Errorf("%d requests took the fast path; want some only on the fast path's row", fast)
	}
}

// bridged is served for a proxy in front of a server that was
// modern-only from the start. The bridge runs on the general path only,
// so on both rows no request is served fast: on the fast path's row the
// fast path reads each head and hands the request over for the server
// (see TestFastPathGivesTheBridgeItsRequests), as it does on net/http's
// row for every request. What the rows still differ in is how the general
// path sends upstream: the proxy's own transport, or the caller's
// http.Client (proxy.Options.HTTPClient).
func (tr transport) bridged(t *testing.T, px *running) {
	t.Helper()
	if p := px.Paths(); p.Fast != 0 || p.General["server"] == 0 {
		t.Errorf("%d requests served fast, %d handed over for the server; want none and some: the bridge is the general path's",
			p.Fast, p.General["server"])
	}
}

// startProxy serves a proxy for upstream on a free loopback port.
func startProxy(t testing.TB, opts proxy.Options) *running {
	t.Helper()
	return startProxyAt(t, "127.0.0.1:0", opts)
}

func startProxyAt(t testing.TB, addr string, opts proxy.Options) *running {
	t.Helper()
	r := &running{}
	opts.OnSighting = func(ev proxy.Sighting) {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.events = append(r.events, ev)
	}
	if opts.Server == "" {
		opts.Server = "mem"
	}
	if opts.Secret == "" {
		opts.Secret = proxy.NewSecret()
	}
	p, err := proxy.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := proxy.Listen(addr)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Serve(ctx, ln) }()
	r.Proxy, r.addr, r.secret = p, ln.Addr().String(), opts.Secret
	r.url = proxy.URLFor(r.addr, r.secret)
	var once sync.Once
	r.stop = func() {
		once.Do(func() {
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("Serve: %v", err)
				}
			case <-time.After(10 * time.Second):
				t.Error("the proxy did not stop")
			}
		})
	}
	t.Cleanup(r.stop)
	return r
}

// of lists the events of one kind so far.
func (r *running) of(kind proxy.SightingKind) []proxy.Sighting {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []proxy.Sighting
	for _, ev := range r.events {
		if ev.Kind == kind {
			out = append(out, ev)
		}
	}
	return out
}

// startServer is the real Go SDK server, sessions ending after idle.
func startServer(t *testing.T, opts demoserver.Options) *demoserver.Server {
	t.Helper()
	s, err := demoserver.Start(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// connect opens a Go SDK client session at url. The Go SDK's client is
// terminal on a lost session (ErrSessionMissing): through the proxy it
// must never meet one.
func connect(t *testing.T, url string) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "proxy-test", Version: "1"}, nil)
	cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// count calls the server's count tool, failing the test on any error.
func count(t *testing.T, cs *mcp.ClientSession) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "count"})
	if err != nil {
		t.Fatalf("count through the proxy: %v", err)
	}
	if res.IsError {
		t.Fatalf("count answered a tool error: %+v", res.Content)
	}
}

// waitFor polls cond until it holds or 30 s pass (a wait, not a bound: on a loaded machine the proxy's steps take their time).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}
