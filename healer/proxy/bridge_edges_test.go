package proxy_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/healer/proxy"
	"github.com/mcpwatchdog/watchdog/internal/demoserver"
	"github.com/mcpwatchdog/watchdog/internal/testbed/tsmodern"
)

// cutAfterSending fronts a real server: tools/call requests reach it and
// run, then the connection is cut before the host's proxy hears an
// answer. Everything else passes.
func cutAfterSending(t *testing.T, upstream string) (url string, cuts *atomic.Int32) {
	t.Helper()
	target, err := parseURL(upstream)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(target)
	cuts = &atomic.Int32{}
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Mcp-Method") != "tools/call" {
			rp.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		rp.ServeHTTP(rec, r) // the server ran the tool and answered
		cuts.Add(1)
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			_ = conn.Close() // the answer never reaches the proxy
		}
	}))
	t.Cleanup(hs.Close)
	return hs.URL + "/mcp", cuts
}

func parseURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, err
	}
	u.Path = ""
	return u, nil
}

// No replay, ever, on a modern server: a bridged call that reached the
// server and got no answer reaches the host as a failure and is never sent
// again (the server ran it once).
func TestBridgeNeverSendsTwice(t *testing.T) {
	t.Parallel()
	onTransports(t, bridgeNeverSendsTwice)
}

func bridgeNeverSendsTwice(t *testing.T, tr transport) {
	t.Parallel()
	srv := tsmodern.Start(t, tsmodern.Options{})
	front, cuts := cutAfterSending(t, srv.URL())
	px := tr.start(t, proxy.Options{Upstream: front})
	call, err := goLegacyClient(t, px.url)
	if err != nil {
		t.Fatal(err)
	}
	if err := call(t); err == nil {
		t.Fatal("a call whose answer was cut succeeded")
	} else {
		t.Logf("the host was told: %v", err)
	}
	if n := srv.Count(t); n != 1 || cuts.Load() != 1 {
		t.Fatalf("the server ran the tool %d times, %d answers cut; want 1 and 1: the proxy sent the call again", n, cuts.Load())
	}
	tr.bridged(t, px)
}

// A connection refused before sending carried nothing: the one retry
// there is. A call made while the server restarts waits for it and runs
// once.
func TestBridgeWaitsOutARestart(t *testing.T) {
	t.Parallel()
	onTransports(t, bridgeWaitsOutARestart)
}

func bridgeWaitsOutARestart(t *testing.T, tr transport) {
	t.Parallel()
	srv := tsmodern.Start(t, tsmodern.Options{})
	px := tr.start(t, proxy.Options{Upstream: srv.URL()})
	call, err := goLegacyClient(t, px.url)
	if err != nil {
		t.Fatal(err)
	}
	mustCall(t, call, "the first call")
	port := portOf(srv.URL())
	srv.Kill()
	done := make(chan error, 1)
	go func() { done <- call(t) }()
	time.Sleep(300 * time.Millisecond) // the call meets refused connections meanwhile
	select {
	case err := <-done:
		t.Fatalf("the call did not wait for the server: %v", err)
	default:
	}
	srv = tsmodern.Start(t, tsmodern.Options{Port: port})
	if err := <-done; err != nil {
		t.Fatalf("the call made while the server restarted: %v", err)
	}
	if n := srv.Count(t); n != 1 {
		t.Fatalf("the restarted server ran %d tools, want 1", n)
	}
	tr.bridged(t, px)
}

// A 2026-07-28 host passes through untouched: its initialize (the
// envelope's own, which a modern server answers 404 -32601) is not taken
// for a legacy host's.
func TestBridgeLeavesModernHostsAlone(t *testing.T) {
	t.Parallel()
	onTransports(t, bridgeLeavesModernHostsAlone)
}

func bridgeLeavesModernHostsAlone(t *testing.T, tr transport) {
	t.Parallel()
	srv := tsmodern.Start(t, tsmodern.Options{})
	px := tr.start(t, proxy.Options{Upstream: srv.URL()})
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},` +
		`"clientInfo":{"name":"m","version":"1"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
		`"io.modelcontextprotocol/clientCapabilities":{}}}}`
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, px.url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "initialize")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound || resp.Header.Get("Mcp-Session-Id") != "" {
		t.Fatalf("a modern initialize got %d, session %q; want the server's own 404", resp.StatusCode, resp.Header.Get("Mcp-Session-Id"))
	}
	if len(px.Sessions()) != 0 || px.Bridging() {
		t.Fatalf("the proxy took a modern host for a legacy one: sessions %v, era %q", px.Sessions(), px.Era())
	}
	tr.served(t, px)
}

// The fast path hands the bridge its requests: a legacy host's session
// opened on the fast path, the server back modern-only on the same port,
// and the host's next call, refused there as only a modern-only server
// refuses, is given back unread to the general path, which bridges it:
// each runs once, and the path counter says the server sent it there.
func TestFastPathGivesTheBridgeItsRequests(t *testing.T) {
	legacy := startServer(t, demoserver.Options{})
	px := startProxy(t, proxy.Options{Upstream: legacy.URL()})
	id := rawSession(t, px.url)
	if resp := callCount(t, px.url, id); resp.StatusCode != http.StatusOK {
		t.Fatalf("the call before the restart: %d", resp.StatusCode)
	}
	before := px.Paths()
	if before.Fast < 3 || len(generalSince(proxy.Paths{}, before)) != 0 {
		t.Fatalf("fast %d, general %v: want the session's requests on the fast path", before.Fast, before.General)
	}
	_ = legacy.Close()
	modern := tsmodern.Start(t, tsmodern.Options{Port: portOf(legacy.URL())})
	for i := range 2 {
		resp := callCount(t, px.url, id)
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"result"`) {
			t.Fatalf("call %d after the server came back modern-only: %d %s", i+1, resp.StatusCode, body)
		}
	}
	if n := modern.Count(t); n != 2 {
		t.Fatalf("the modern-only server ran %d tools, want 2", n)
	}
	// The first is given back for the server; the connection then stays
	// with the general path, and its next call counts as the connection's.
	if got := generalSince(before, px.Paths()); got["server"] < 1 || got["server"]+got["connection"] < 2 {
		t.Errorf("general path since the restart %v, want both calls there, the first for the server", got)
	}
	if !px.Bridging() {
		t.Error("the proxy does not say it bridges")
	}
}

// A legacy host's bridged session outlives a restart of the proxy (its
// state file kept): its next call is bridged, the proxy says it bridges
// (status reads Bridging), and the journal hears it once.
func TestBridgedSessionKeptAcrossAProxyRestart(t *testing.T) {
	t.Parallel()
	onTransports(t, bridgedSessionKeptAcrossAProxyRestart)
}

func bridgedSessionKeptAcrossAProxyRestart(t *testing.T, tr transport) {
	t.Parallel()
	srv := tsmodern.Start(t, tsmodern.Options{})
	state := filepath.Join(t.TempDir(), "proxy-mem.json")
	px := tr.start(t, proxy.Options{Upstream: srv.URL(), StateFile: state})
	call, err := goLegacyClient(t, px.url)
	if err != nil {
		t.Fatal(err)
	}
	mustCall(t, call, "the call before the restart")
	px.stop()
	again := tr.startAt(t, px.addr, proxy.Options{Upstream: srv.URL(), StateFile: state, Secret: px.secret})
	settleConns() // the host's client notices its kept connection closed
	mustCall(t, call, "the call after the restart")
	if n := srv.Count(t); n != 2 {
		t.Fatalf("the server ran %d tools for 2 calls", n)
	}
	if !again.Bridging() || len(again.of(proxy.EvBridging)) != 1 {
		t.Fatalf("after the restart: era %q, %d bridging sightings; want modern-only, 1", again.Era(), len(again.of(proxy.EvBridging)))
	}
	tr.bridged(t, again)
}
