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

// waitFor polls cond until it holds or 10 s pass.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}
