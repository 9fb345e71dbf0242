package proxy_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	mcpgoclient "github.com/mark3labs/mcp-go/client"
	mcpgotransport "github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwatchdog/watchdog/healer/proxy"
	"github.com/mcpwatchdog/watchdog/internal/demoserver"
	"github.com/mcpwatchdog/watchdog/internal/testbed/tsmodern"
	"github.com/mcpwatchdog/watchdog/internal/testbed/tsserver"
)

// legacyVersion is what the legacy clients are pinned to: the last
// protocol before 2026-07-28.
const legacyVersion = "2025-11-25"

// legacyClient is a real client of the legacy era: connect runs its
// handshake (an error when the server refuses it) and hands back a call of
// the server's count tool.
type legacyClient struct {
	name    string
	connect func(t *testing.T, url string) (call func(t *testing.T) error, err error)
}

var legacyClients = []legacyClient{
	{"ts-sdk 1.x client", func(t *testing.T, url string) (func(*testing.T) error, error) {
		c := tsserver.StartClient(t, url) // fails the test when the handshake fails
		return func(t *testing.T) error {
			if line := c.Call(t, "count"); !strings.HasPrefix(line, "OK ") {
				return lineError(line)
			}
			return nil
		}, nil
	}},
	{"go-sdk client", goLegacyClient},
	{"mcp-go client", mcpgoLegacyClient},
}

type lineError string

func (e lineError) Error() string { return string(e) }

// goLegacyClient is the Go SDK's client pinned to 2025-11-25: it opens
// with initialize, never with server/discover.
func goLegacyClient(t *testing.T, url string) (func(*testing.T) error, error) {
	client := mcp.NewClient(&mcp.Implementation{Name: "go-sdk-legacy", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{}},
		&mcp.ClientSessionOptions{ProtocolVersion: legacyVersion})
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { _ = cs.Close() })
	return func(t *testing.T) error {
		ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
		defer cancel()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "count"})
		if err == nil && res.IsError {
			return lineError("tool error")
		}
		return err
	}, nil
}

// mcpgoLegacyClient is mark3labs/mcp-go's client pinned to 2025-11-25.
func mcpgoLegacyClient(t *testing.T, url string) (func(*testing.T) error, error) {
	tr, err := mcpgotransport.NewStreamableHTTP(url)
	if err != nil {
		return nil, err
	}
	c := mcpgoclient.NewClient(tr, mcpgoclient.WithProtocolVersion(legacyVersion))
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		return nil, err
	}
	t.Cleanup(func() { _ = c.Close() })
	req := mcpgo.InitializeRequest{}
	req.Params.ProtocolVersion = legacyVersion
	req.Params.ClientInfo = mcpgo.Implementation{Name: "mcp-go-legacy", Version: "1"}
	if _, err := c.Initialize(ctx, req); err != nil {
		return nil, err
	}
	return func(t *testing.T) error {
		ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
		defer cancel()
		res, err := c.CallTool(ctx, mcpgo.CallToolRequest{Params: mcpgo.CallToolParams{Name: "count"}})
		if err == nil && res.IsError {
			return lineError("tool error")
		}
		return err
	}, nil
}

// The measurement of issue 49: a modern-only server (the TypeScript SDK
// v2, legacy: 'reject') refuses a legacy client's initialize with 400
// -32022; straight, the TypeScript SDK 1.x client, and the Go SDK and
// mcp-go clients pinned to 2025-11-25, cannot connect ("likely a legacy
// SSE server", says mcp-go), and no tool runs.
func TestModernOnlyRefusesLegacyClientsStraight(t *testing.T) {
	t.Parallel()
	srv := tsmodern.Start(t, tsmodern.Options{})
	if out := tsserver.StartClientRefused(t, srv.URL()); !strings.Contains(out, "-32022") {
		t.Errorf("ts-sdk 1.x client straight: %s; want the server's -32022", out)
	} else {
		t.Logf("ts-sdk 1.x client straight: %s", firstLineWith(out, "-32022"))
	}
	for _, cl := range legacyClients[1:] {
		if _, err := cl.connect(t, srv.URL()); err == nil {
			t.Errorf("%s connected straight to a modern-only server", cl.name)
		} else {
			t.Logf("%s straight: %v", cl.name, err)
		}
	}
	if n := srv.Count(t); n != 0 {
		t.Fatalf("the server ran %d tools", n)
	}
}

func firstLineWith(text, word string) string {
	for line := range strings.SplitSeq(text, "\n") {
		if strings.Contains(line, word) {
			return line
		}
	}
	return ""
}

// Through the proxy every legacy client keeps working against the
// modern-only server, across a server restart and an idle pause: the
// proxy bridges the eras. Each call runs exactly once (the server counts
// its tool runs), nothing is replayed (no recovery), and the proxy said
// once that it bridges the server.
func TestBridgeServesLegacyClients(t *testing.T) {
	onTransports(t, bridgeServesLegacyClients)
}

func bridgeServesLegacyClients(t *testing.T, tr transport) {
	for _, cl := range legacyClients {
		for _, pause := range []string{"restart", "idle pause"} {
			t.Run(cl.name+"/"+pause, func(t *testing.T) {
				t.Parallel()
				srv := tsmodern.Start(t, tsmodern.Options{})
				px := tr.start(t, proxy.Options{Upstream: srv.URL(), IdleTimeout: idleTimeout, KeepWarm: true})
				call, err := cl.connect(t, px.url)
				if err != nil {
					t.Fatalf("connect through the proxy: %v", err)
				}
				mustCall(t, call, "the first call")
				want := 2
				if pause == "restart" {
					srv.Kill()
					srv = tsmodern.Start(t, tsmodern.Options{Port: portOf(srv.URL())})
					want = 1
					settleConns()
				} else {
					time.Sleep(3 * idleTimeout) // keep-warm would have pinged twice by now
				}
				mustCall(t, call, "the call after the "+pause)
				if got := srv.Count(t); got != want {
					t.Errorf("the server ran %d tools, want %d: a call ran twice or not at all", got, want)
				}
				if rec := px.of(proxy.EvRecovered); len(rec) > 0 {
					t.Errorf("the proxy replayed on a server without sessions: %+v", rec)
				}
				if b := px.of(proxy.EvBridging); len(b) != 1 {
					t.Errorf("the proxy said %d times that it bridges the server, want once", len(b))
				}
				if !px.Bridging() {
					t.Errorf("the proxy's era is %q, want modern-only", px.Era())
				}
				tr.bridged(t, px)
			})
		}
	}
}

func mustCall(t *testing.T, call func(*testing.T) error, what string) {
	t.Helper()
	if err := call(t); err != nil {
		t.Fatalf("%s through the proxy failed: %v", what, err)
	}
}

// A legacy host keeps working when its server restarts as modern-only:
// the call after the restart meets the refusal (-32022, the server ran
// nothing), the proxy learns the new era and sends that call once in the
// 2026-07-28 shape; and back again when the server restarts as legacy.
func TestBridgeFollowsTheServerAcrossEras(t *testing.T) {
	t.Parallel()
	onTransports(t, bridgeFollowsTheServerAcrossEras)
}

func bridgeFollowsTheServerAcrossEras(t *testing.T, tr transport) {
	t.Parallel()
	legacy := startServer(t, demoserver.Options{})
	addr := strings.TrimSuffix(strings.TrimPrefix(legacy.URL(), "http://"), "/mcp")
	px := tr.start(t, proxy.Options{Upstream: legacy.URL()})
	c := tsserver.StartClient(t, px.url)
	if line := c.Call(t, "count"); !strings.HasPrefix(line, "OK ") {
		t.Fatalf("the first call: %s", line)
	}
	_ = legacy.Close()
	modern := tsmodern.Start(t, tsmodern.Options{Port: portOf(legacy.URL())})
	settleConns()
	for i := range 2 {
		if line := c.Call(t, "count"); !strings.HasPrefix(line, "OK ") {
			t.Fatalf("call %d after the server came back modern-only: %s", i+1, line)
		}
	}
	if n := modern.Count(t); n != 2 {
		t.Fatalf("the modern-only server ran %d tools, want 2", n)
	}
	if !px.Bridging() || len(px.of(proxy.EvBridging)) != 1 {
		t.Fatalf("era %q, bridging told %d times", px.Era(), len(px.of(proxy.EvBridging)))
	}
	modern.Kill()
	back := startServer(t, demoserver.Options{Addr: addr})
	settleConns()
	if line := c.Call(t, "count"); !strings.HasPrefix(line, "OK ") {
		t.Fatalf("the call after the server came back legacy: %s", line)
	}
	if n := back.Count(); n != 1 {
		t.Fatalf("the legacy server ran %d tools, want 1", n)
	}
	if px.Bridging() {
		t.Fatal("the proxy still bridges a legacy server")
	}
	tr.served(t, px)
}

// A host that met its server when it issued no session (a stateless server
// of both eras) holds none: when the server comes back modern-only, its
// sessionless calls are bridged too, each run once.
func TestBridgeTakesSessionlessHosts(t *testing.T) {
	t.Parallel()
	onTransports(t, bridgeTakesSessionlessHosts)
}

func bridgeTakesSessionlessHosts(t *testing.T, tr transport) {
	t.Parallel()
	both := startServer(t, demoserver.Options{Stateless: true})
	px := tr.start(t, proxy.Options{Upstream: both.URL()})
	call, err := goLegacyClient(t, px.url)
	if err != nil {
		t.Fatal(err)
	}
	mustCall(t, call, "the first call")
	if len(px.Sessions()) != 0 {
		t.Fatalf("the proxy holds sessions for a stateless server: %+v", px.Sessions())
	}
	_ = both.Close()
	modern := tsmodern.Start(t, tsmodern.Options{Port: portOf(both.URL())})
	settleConns()
	mustCall(t, call, "the call after the server came back modern-only")
	mustCall(t, call, "the next call")
	if n := modern.Count(t); n != 2 {
		t.Fatalf("the modern-only server ran %d tools, want 2", n)
	}
	if !px.Bridging() {
		t.Fatalf("era %q", px.Era())
	}
	tr.served(t, px)
}

// Keep-warm never pings a modern server: the proxy's ping of a host's
// session meets the refusal of a server that came back modern-only, and
// every session moves to the bridge at once (no upstream session, nothing
// to ping), before the host's next call, which then runs once.
func TestKeepWarmStopsAtAModernOnlyServer(t *testing.T) {
	t.Parallel()
	onTransports(t, keepWarmStopsAtAModernOnlyServer)
}

func keepWarmStopsAtAModernOnlyServer(t *testing.T, tr transport) {
	t.Parallel()
	legacy := startServer(t, demoserver.Options{IdleTimeout: 4 * idleTimeout})
	px := tr.start(t, proxy.Options{Upstream: legacy.URL(), IdleTimeout: 4 * idleTimeout, KeepWarm: true})
	c := tsserver.StartClient(t, px.url)
	if line := c.Call(t, "count"); !strings.HasPrefix(line, "OK ") {
		t.Fatalf("the first call: %s", line)
	}
	_ = legacy.Close()
	modern := tsmodern.Start(t, tsmodern.Options{Port: portOf(legacy.URL())})
	waitFor(t, "keep-warm to find the server modern-only", px.Bridging)
	for _, s := range px.Sessions() {
		if !s.Bridged || s.Upstream != "" {
			t.Fatalf("a session was left off the bridge: %+v", s)
		}
	}
	if line := c.Call(t, "count"); !strings.HasPrefix(line, "OK ") {
		t.Fatalf("the call after the server came back modern-only: %s", line)
	}
	if n := modern.Count(t); n != 1 {
		t.Fatalf("the modern-only server ran %d tools, want 1", n)
	}
	tr.served(t, px)
}

// The demo's modern-only server (the Go SDK's stateless handler behind a
// legacy-refusing front that answers as the TypeScript SDK v2 does) is
// bridged the same: each legacy client's calls run once.
func TestBridgeOverTheGoModernOnlyServer(t *testing.T) {
	t.Parallel()
	onTransports(t, bridgeOverTheGoModernOnlyServer)
}

func bridgeOverTheGoModernOnlyServer(t *testing.T, tr transport) {
	t.Parallel()
	srv := startServer(t, demoserver.Options{ModernOnly: true})
	px := tr.start(t, proxy.Options{Upstream: srv.URL()})
	for _, cl := range legacyClients[1:] {
		if _, err := cl.connect(t, srv.URL()); err == nil {
			t.Fatalf("%s connected straight to the modern-only server", cl.name)
		}
		call, err := cl.connect(t, px.url)
		if err != nil {
			t.Fatalf("%s through the proxy: %v", cl.name, err)
		}
		mustCall(t, call, cl.name+"'s call")
	}
	if n := srv.Count(); n != 2 || !px.Bridging() {
		t.Fatalf("the server ran %d tools (want 2); era %q", n, px.Era())
	}
	tr.bridged(t, px)
}
