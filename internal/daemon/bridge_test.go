package daemon_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwatchdog/watchdog/internal/daemon"
	"github.com/mcpwatchdog/watchdog/internal/testbed/daemontest"
	"github.com/mcpwatchdog/watchdog/internal/testbed/tsmodern"
	"github.com/mcpwatchdog/watchdog/internal/testbed/tsserver"
)

// A modern-only server (the TypeScript SDK v2, legacy: 'reject') with a
// proxied entry and a plain one: a legacy host (the Go SDK client pinned
// to 2025-11-25) works through the proxy; the journal says once that the
// proxy bridges the server; status says modern-only for both entries and
// that the proxy bridges; nothing is kept warm there, by the daemon or
// the proxy, though keep_warm is on.
func TestDaemonBridgesAModernOnlyServer(t *testing.T) {
	t.Parallel()
	srv, cfg, state, listen := modernOnlySetup(t)
	startDaemonOpts(t, cfg, state, daemon.Options{ConfigFile: cfg})
	proxyURL := daemontest.ProxyURL(t, state, listen)

	client := mcp.NewClient(&mcp.Implementation{Name: daemontest.HostClient(), Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: proxyURL, HTTPClient: &http.Client{}},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("a legacy host through the proxy: %v", err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	for i := range 2 {
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "count"}); err != nil {
			t.Fatalf("call %d: %v", i+1, err)
		}
		time.Sleep(1500 * time.Millisecond) // past half the idle timeout: keep-warm would be due
	}
	bridged := daemontest.WaitEvent(t, state, "server_mode", 1, 10*time.Second)
	daemontest.WaitFor(t, 10*time.Second, "status to say modern-only for both entries", func() bool {
		return eraOf(status(t, state), "mem") == "modern-only" && eraOf(status(t, state), "direct") == "modern-only"
	})
	var told int
	for _, ev := range daemontest.Journal(t, state, "server_mode") {
		if ev["bridged"] == true {
			told++
			bridged = ev
		}
	}
	if told != 1 || bridged.Str("server") != "mem" || bridged.Str("era") != "modern-only" {
		t.Fatalf("the journal said %d times that the proxy bridges the server (%v), want once", told, bridged)
	}
	mem := serverOf(status(t, state), "mem")
	held, _ := mem["proxy_sessions"].([]any)
	if mem["proxy_bridges"] != true || mem["mode"] != "stateless" || len(held) != 1 || held[0].(map[string]any)["bridged"] != true {
		t.Fatalf("status of mem: %v", mem)
	}
	if warm := daemontest.Journal(t, state, "keep_warm", "keep_warm_failed"); len(warm) != 0 {
		t.Fatalf("a modern-only server was kept warm: %v", warm)
	}
	if n := srv.Count(t); n != 2 {
		t.Fatalf("the server ran %d tools, want 2", n)
	}
}

// modernOnlySetup: the TypeScript SDK v2 modern-only server and a config
// that names it twice, "mem" through a proxy and "direct", keep_warm on,
// a 2 s idle timeout; it returns the server, the config, the state dir
// and the proxy's address.
func modernOnlySetup(t *testing.T) (srv *tsserver.Server, cfg, state, listen string) {
	t.Helper()
	srv = tsmodern.Start(t, tsmodern.Options{})
	dir := t.TempDir()
	listen = daemontest.FreePort(t)
	cfg = daemontest.WriteConfig(t, dir, fmt.Sprintf(`
[host]
client_name = %q
process = ""
port = 0

[[server]]
name = "mem"
url = %q
idle_timeout = "2s"
keep_warm = true
proxy_listen = %q

[[server]]
name = "direct"
url = %q
idle_timeout = "2s"
keep_warm = true
`, daemontest.HostClient(), srv.URL(), listen, srv.URL()))
	return srv, cfg, dir + "/state", listen
}

func serverOf(st map[string]any, name string) map[string]any {
	servers, _ := st["servers"].([]any)
	for _, s := range servers {
		if m, _ := s.(map[string]any); m["name"] == name {
			return m
		}
	}
	return nil
}

func eraOf(st map[string]any, name string) string {
	e, _ := serverOf(st, name)["era"].(string)
	return e
}
