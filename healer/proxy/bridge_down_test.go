package proxy_test

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwatchdog/watchdog/healer/proxy"
	"github.com/mcpwatchdog/watchdog/internal/demoserver"
	"github.com/mcpwatchdog/watchdog/internal/testbed/tsmodern"
)

// modernOnlyServer is a real modern-only server that goes down and comes
// back at the same address: start serves it on port (0: a free one) and
// hands back its URL, how many tools this run of it ran, and its stop.
type modernOnlyServer struct {
	name  string
	start func(t *testing.T, port int) (url string, ran func() int, stop func())
}

var modernOnlyServers = []modernOnlyServer{
	{"go-sdk modern-only server", func(t *testing.T, port int) (string, func() int, func()) {
		srv := startServer(t, demoserver.Options{ModernOnly: true, Addr: fmt.Sprintf("127.0.0.1:%d", port)})
		return srv.URL(), func() int { return int(srv.Count()) }, func() { _ = srv.Close() }
	}},
	{"ts-sdk v2 modern-only server", func(t *testing.T, port int) (string, func() int, func()) {
		srv := tsmodern.Start(t, tsmodern.Options{Port: port})
		return srv.URL(), func() int { return srv.Count(t) }, srv.Kill
	}},
}

// legacyGoSession is the Go SDK's client pinned to 2025-11-25 (it opens
// with initialize) connected at url within ctx.
func legacyGoSession(ctx context.Context, t *testing.T, url string) (*mcp.ClientSession, error) {
	client := mcp.NewClient(&mcp.Implementation{Name: "go-sdk-legacy", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{}},
		&mcp.ClientSessionOptions{ProtocolVersion: legacyVersion})
	if err == nil {
		t.Cleanup(func() { _ = cs.Close() })
	}
	return cs, err
}

// When a legacy host starts, as to its modern-only server: before it went
// down (the host holds a bridged session), after it went down with the
// proxy that saw it up (the era known), or after it went down and the
// proxy restarted with the same state (a daemon restart: the era unknown).
type downCase struct {
	name      string
	hostFirst bool // the host starts before the server goes down
	restarted bool // the proxy restarts while the server is down
}

var downCases = []downCase{
	{"host started before", true, false},
	{"host started after, same proxy", false, false},
	{"host started after, proxy restarted", false, true},
}

// A legacy host of a modern-only server that is down is served from the
// last-known server over the bridge, as every other era's host is: the
// proxy saw the server once (a legacy host over the bridge, so it kept
// its server/discover and tools/list), and while the server is down the
// host's initialize is answered from the kept discover at once (though
// the proxy would wait a minute for a server it knew nothing of), its
// tools are the kept ones, a call fails after the call wait naming the
// server, and once the server is up a call runs there once.
func TestLegacyHostBridgedWhileModernOnlyServerDown(t *testing.T) {
	t.Parallel()
	onTransports(t, func(t *testing.T, tr transport) {
		t.Parallel()
		for _, ms := range modernOnlyServers {
			for _, c := range downCases {
				t.Run(ms.name+"/"+c.name, func(t *testing.T) {
					t.Parallel()
					legacyHostWhileModernOnlyDown(t, tr, ms, c)
				})
			}
		}
	})
}

func legacyHostWhileModernOnlyDown(t *testing.T, tr transport, ms modernOnlyServer, c downCase) {
	const callWait = 500 * time.Millisecond
	url, _, stop := ms.start(t, 0)
	opts := proxy.Options{Upstream: url, KnownFile: filepath.Join(t.TempDir(), "known-mem.json"),
		CallWait: callWait, InitWait: time.Minute}
	px := tr.start(t, opts)
	info, tools := seeModernOnlyOnce(t, px)
	var cs *mcp.ClientSession
	if c.hostFirst {
		cs = startWithin(t, px, 20*time.Second)
	}
	stop()
	settleConns() // a request meeting the close of a kept connection may have run: it fails, unsent again
	if c.restarted {
		px.stop()
		px = tr.start(t, opts)
	}
	if !c.hostFirst {
		cs = startWithin(t, px, 5*time.Second)
		checkAttachedBridged(t, px)
	}
	if got := cs.InitializeResult().ServerInfo; got.Name != info.Name {
		t.Errorf("attached to server %+v, want the last-known one %+v", got, info)
	}
	if got := toolNames(t, cs); !slices.Equal(got, tools) {
		t.Errorf("tools while the server is down: %v, want the last-known %v", got, tools)
	}
	callBeforeUp(t, px, cs, callWait)

	_, ran, _ := ms.start(t, portOf(url))
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "count"})
	if err != nil || res.IsError {
		t.Fatalf("a call once the server is up: %v %+v", err, res)
	}
	if n := ran(); n != 1 {
		t.Errorf("the server ran %d tools once up, want 1", n)
	}
}

// startWithin starts a legacy host through px within limit: well under
// the proxy's wait for a server it knows nothing of (InitWait, a minute).
func startWithin(t *testing.T, px *running, limit time.Duration) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), limit)
	defer cancel()
	began := time.Now()
	cs, err := legacyGoSession(ctx, t, px.url)
	if err != nil {
		t.Fatalf("a legacy host could not start through the proxy: %v (after %v)", err, time.Since(began))
	}
	return cs
}

// seeModernOnlyOnce has a legacy host list the tools of px's modern-only
// server and call one, through the bridge, and go: what the proxy keeps
// of the server. It returns the server's info and tools as the host saw
// them.
func seeModernOnlyOnce(t *testing.T, px *running) (*mcp.Implementation, []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	cs, err := legacyGoSession(ctx, t, px.url)
	if err != nil {
		t.Fatalf("a legacy host through the proxy while the server was up: %v", err)
	}
	defer cs.Close()
	tools := toolNames(t, cs)
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "count"}); err != nil || res.IsError {
		t.Fatalf("a call while the server was up: %v %+v", err, res)
	}
	if _, ok := px.Known("tools/list"); !ok {
		t.Error("the proxy kept no tools/list of a modern-only server a legacy host listed over the bridge")
	}
	return cs.InitializeResult().ServerInfo, tools
}

// checkAttachedBridged checks the journal: one host attached from the
// last-known server, bridged, with the time of the knowledge.
func checkAttachedBridged(t *testing.T, px *running) {
	t.Helper()
	att := slices.DeleteFunc(px.of(proxy.EvAttached), func(ev proxy.Sighting) bool { return ev.HostSession == "" })
	if len(att) != 1 || att[0].Known.IsZero() || !strings.Contains(att[0].Detail, "found mem down") ||
		!strings.Contains(att[0].Detail, "2026-07-28") {
		t.Errorf("attached sightings of a session: %+v; want one, bridged, with the time of the knowledge", att)
	}
}

// callBeforeUp checks that a call before the server is up waits callWait,
// then fails naming the server, and the journal says so.
func callBeforeUp(t *testing.T, px *running, cs *mcp.ClientSession, callWait time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	began := time.Now()
	_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "count"})
	took := time.Since(began)
	if err == nil || !strings.Contains(err.Error(), "mem is not up yet") {
		t.Fatalf("a call while the server is down: %v (after %v); want an error naming mem, not up yet", err, took)
	}
	if took < callWait || took > callWait+5*time.Second {
		t.Errorf("the call failed after %v; want its wait of %v", took, callWait)
	}
	if n := px.of(proxy.EvNotUp); len(n) != 1 || n[0].HostSession == "" {
		t.Errorf("not-up sightings: %+v, want one, of the host's session", n)
	}
}
