package daemon_test

import (
	"context"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwatchdog/watchdog/internal/daemon"
	"github.com/mcpwatchdog/watchdog/internal/demoserver"
	"github.com/mcpwatchdog/watchdog/internal/testbed/daemontest"
)

// TestProxyLossesJournaledUnderTheirHost: with DSH and opencode watched, a
// host calling through the proxy as opencode (its client name) meets an
// idle expiry, pinging before every call as Crush does: the loss the
// proxy healed is journaled under opencode, never DSH, and ends in a
// recovered. A host the config does not watch (Copilot CLI's client) gets
// its own name from its profile; every proxy loss ends in a recovered.
func TestProxyLossesJournaledUnderTheirHost(t *testing.T) {
	t.Parallel()
	srv, cfg, state := daemontest.MemSetupHosts(t, 3*time.Second, false,
		"[[host]]\nname = \"DSH\"\nprocess = \"\"\nport = 0\n\n[[host]]\nname = \"opencode\"\nprocess = \"\"\n")
	listen := daemontest.FreePort(t)
	appendTo(t, cfg, "proxy_listen = \""+listen+"\"\n")
	startDaemonOpts(t, cfg, state, daemon.Options{ConfigFile: cfg})
	proxyURL := daemontest.ProxyURL(t, state, listen)
	ctx := context.Background()
	var sessions []*mcp.ClientSession
	for _, client := range []string{"opencode", "copilot-cli"} {
		cs, err := demoserver.Connect(ctx, proxyURL, client)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		if _, err := cs.CallTool(ctx, toolCall("echo")); err != nil {
			t.Fatal(err)
		}
		sessions = append(sessions, cs)
	}
	daemontest.WaitFor(t, 20*time.Second, "the server to forget both sessions (3 s idle)", func() bool { return len(srv.SessionIDs()) == 0 })
	for _, cs := range sessions {
		// As Crush does: a ping before every call; the ping meets the loss.
		if err := cs.Ping(ctx, nil); err != nil {
			t.Errorf("a ping after the expiry failed through the proxy: %v", err)
		}
		if _, err := cs.CallTool(ctx, toolCall("echo")); err != nil {
			t.Errorf("a call after the expiry failed through the proxy: %v", err)
		}
	}
	daemontest.WaitEvent(t, state, "recovered", 2, 10*time.Second)
	lost := daemontest.Journal(t, state, "session_lost")
	rec := daemontest.Journal(t, state, "recovered")
	byHost := map[string]int{}
	for _, ev := range rec {
		byHost[ev.Str("host")]++
	}
	if byHost["opencode"] != 1 || byHost["Copilot CLI"] != 1 || byHost["DSH"] != 0 {
		t.Errorf("recoveries by host %v; want one each for opencode and Copilot CLI, none for DSH", byHost)
	}
	if len(lost) != len(rec) {
		t.Errorf("%d losses, %d recoveries: every loss the proxy heals ends in recovered\n%v\n%v", len(lost), len(rec), lost, rec)
	}
	for _, ev := range lost {
		if ev.Str("host") == "DSH" || ev.Str("source") != "proxy" {
			t.Errorf("session_lost %v; want the proxy's word, under the host whose call met it", ev)
		}
	}
}
