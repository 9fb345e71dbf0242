package daemon_test

import (
	"context"
	"net/url"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/daemon"
	"github.com/mcpwatchdog/watchdog/internal/demoserver"
	"github.com/mcpwatchdog/watchdog/internal/testbed/daemontest"
)

// A host that starts while its proxied server is down is attached from
// what the server last said through the proxy, and the journal says so in
// the host's name; once the server is up the host's session is opened and
// the journal says that too, and its calls work.
func TestJournalSaysAHostAttachedWhileItsServerWasDown(t *testing.T) {
	t.Parallel()
	srv, cfg, state := daemontest.KeepWarmSetup(t, false, "")
	listen := daemontest.FreePort(t)
	appendTo(t, cfg, "proxy_listen = \""+listen+"\"\n")
	startDaemonOpts(t, cfg, state, daemon.Options{ConfigFile: cfg})
	proxyURL := daemontest.ProxyURL(t, state, listen)
	ctx := context.Background()
	first, err := demoserver.Connect(ctx, proxyURL, daemontest.HostClient())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := first.ListTools(ctx, nil); err != nil { // what the proxy keeps of the server
		t.Fatal(err)
	}
	first.Close()
	u, _ := url.Parse(srv.URL())
	srv.Close()
	late, err := demoserver.Connect(ctx, proxyURL, daemontest.HostClient())
	if err != nil {
		t.Fatalf("a host starting while its server is down could not attach through the proxy: %v", err)
	}
	defer late.Close()
	att := daemontest.WaitEvent(t, state, "host_attached", 1, 20*time.Second)
	if att.Str("server") != "mem" || att.Str("client") != daemontest.HostClient() || att.Str("host") == "" || att.Str("known") == "" {
		t.Errorf("host_attached = %v; want server mem, the host's client and name, and when the server said what it was attached from", att)
	}
	up, err := demoserver.Start(ctx, demoserver.Options{Addr: u.Host})
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	daemontest.WaitEvent(t, state, "host_caught_up", 1, 30*time.Second)
	if _, err := late.CallTool(ctx, toolCall("echo")); err != nil {
		t.Fatalf("the attached host's call once its server is up: %v", err)
	}
}
