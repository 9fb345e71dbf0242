package proxy_test

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwatchdog/watchdog/healer/proxy"
	"github.com/mcpwatchdog/watchdog/internal/testbed/tsserver"
)

// A 2026-07-28 host (the Go SDK's client; Claude Code 2.1.332 too) opens
// with server/discover. A legacy server (the TypeScript SDK's, 1.x)
// refuses it (400), and the host falls back to initialize: the proxy
// keeps that initialize and the tools, not the refusal. When such a
// server is down at the host's start, its discover is refused at once in
// the server's place, so the host initializes and is attached from the
// last-known server, as a legacy host is, rather than held for the
// server (Options.InitWait: 20 s; Claude Code gives up after ~3 s and
// offers none of the server's tools). Once the server is up, the host's
// call runs there, once.
func TestModernHostAttachesToLegacyServerWhileDown(t *testing.T) {
	onTransports(t, func(t *testing.T, tr transport) {
		ts := tsserver.Start(t, tsserver.Options{Mode: tsserver.Stateful})
		var port int
		if _, err := fmt.Sscanf(ts.URL(), "http://127.0.0.1:%d/mcp", &port); err != nil {
			t.Fatalf("the TS server's URL %s: %v", ts.URL(), err)
		}
		path := filepath.Join(t.TempDir(), "known-mem.json")
		px := tr.start(t, proxy.Options{Upstream: ts.URL(), KnownFile: path})
		first := connect(t, px.url)
		if got := toolNames(t, first); !slices.Contains(got, "echo") {
			t.Fatalf("tools through the proxy: %v", got)
		}
		_ = first.Close()
		if _, ok := px.Known("server/discover"); ok {
			t.Fatal("the proxy kept an answer to server/discover from a server that refuses it")
		}
		ts.Stop()

		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		defer cancel()
		began := time.Now()
		client := mcp.NewClient(&mcp.Implementation{Name: "modern-host", Version: "1"}, nil)
		cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: px.url, HTTPClient: &http.Client{}}, nil)
		if err != nil {
			t.Fatalf("a 2026-07-28 host could not start while its legacy server was down (after %v): %v", time.Since(began).Round(time.Millisecond), err)
		}
		t.Cleanup(func() { _ = cs.Close() })
		if took := time.Since(began); took > 2*time.Second {
			t.Errorf("the host's start took %v while the server was down; want it answered from the last-known server at once", took)
		}
		if got := cs.InitializeResult().ServerInfo.Name; got != "watchdog-tsserver" {
			t.Errorf("attached to server %q, want the last-known one", got)
		}
		if got := toolNames(t, cs); !slices.Contains(got, "echo") {
			t.Errorf("tools while the server is down: %v, want the last-known ones", got)
		}
		again, err := tsserver.Launch(tsserver.Options{Mode: tsserver.Stateful, Port: port})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(again.Stop)
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "late"}})
		if err != nil || res.IsError {
			t.Fatalf("a call once the server is up: %v %+v", err, res)
		}
		if n := len(again.Calls()); n != 1 {
			t.Errorf("the server ran %d calls, want 1", n)
		}
	})
}
