package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwatchdog/watchdog/healer/proxy"
	"github.com/mcpwatchdog/watchdog/internal/demoserver"
	"github.com/mcpwatchdog/watchdog/internal/testbed/daemontest"
)

// A live host calls through the proxy; the daemon is killed with -9 and
// started again between two calls, and the server forgets its sessions
// meanwhile: the next call succeeds, on a new upstream session opened
// from the host's initialize the state file kept.
func TestProxySurvivesDaemonKill(t *testing.T) {
	dir := t.TempDir()
	srv, err := demoserver.Start(context.Background(), demoserver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	listen := daemontest.FreePort(t)
	cfg := daemontest.WriteConfig(t, dir, fmt.Sprintf("[host]\nprocess = \"\"\nport = 0\n[[server]]\nname = \"mem\"\nurl = %q\nproxy_listen = %q\nkeep_warm = false\n", srv.URL(), listen))
	state := filepath.Join(dir, "state")
	p := startDaemon(t, cfg, state)

	client := mcp.NewClient(&mcp.Implementation{Name: "some-host", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	url := daemontest.ProxyURL(t, state, listen)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	call := func(when string) {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "count"})
		if err != nil || res.IsError {
			t.Fatalf("the call %s failed: %v", when, err)
		}
	}
	call("before the kill")
	if fi, err := os.Stat(filepath.Join(state, "proxy-mem.json")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the proxy's state file: %v, mode %v; want it 0600", err, fi.Mode().Perm())
	}
	p.Kill()
	srv.ForgetAll()
	startDaemon(t, cfg, state)
	time.Sleep(200 * time.Millisecond) // the host's transport sees the killed connections closed
	call("after the daemon's kill -9 and restart")
	if n := srv.Count(); n != 2 {
		t.Errorf("the tool ran %d times for 2 calls", n)
	}
	rec := daemontest.WaitEvent(t, state, "recovered", 1, 10*time.Second)
	if rec.Str("source") != "proxy" {
		t.Errorf("recovered: %v; want source proxy", rec)
	}
	// The secret is the same after the restart (the call above went to the
	// URL of the first start), kept 0600.
	if fi, err := os.Stat(filepath.Join(state, proxy.SecretFile)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the proxy's secret file: %v; want it 0600", err)
	}
	for _, args := range [][]string{{"status"}, {"doctor"}} {
		_, out, _ := runWatchdog(t, append(args, "--config", cfg, "--state-dir", state)...)
		if !strings.Contains(out, url) {
			t.Errorf("watchdog %s does not give the proxy's URL %s:\n%s", args[0], url, out)
		}
	}
}
