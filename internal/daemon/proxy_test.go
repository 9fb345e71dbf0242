package daemon_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwatchdog/watchdog/internal/daemon"
	"github.com/mcpwatchdog/watchdog/internal/demoserver"
	"github.com/mcpwatchdog/watchdog/internal/testbed/daemontest"
)

// The daemon serves a server's proxy: a host pointed at it calls across
// an idle expiry without a failed call; the journal shows the loss and the
// recovery from the source "proxy" and nothing of the model's own guess
// (the store still shows the host's client's session vanish: no incident,
// no heal); status names the URL to give the host.
func TestDaemonProxyHealsAnExpiry(t *testing.T) {
	t.Parallel()
	_, cfg, state := daemontest.KeepWarmSetup(t, false, "")
	listen := daemontest.FreePort(t)
	appendTo(t, cfg, "proxy_listen = \""+listen+"\"\n")
	startDaemonOpts(t, cfg, state, daemon.Options{ConfigFile: cfg})
	proxyURL := daemontest.ProxyURL(t, state, listen)
	cs := callAcrossAnExpiry(t, proxyURL)
	rec := daemontest.WaitEvent(t, state, "recovered", 1, 5*time.Second)
	if rec.Str("source") != "proxy" || rec.Str("strategy") != "proxy" || rec["took_ms"] == nil {
		t.Errorf("recovered = %v; want source and strategy proxy, with took_ms", rec)
	}
	for _, ev := range daemontest.Journal(t, state, "session_lost", "heal_started", "heal_failed") {
		if ev.Str("kind") != "session_lost" || ev.Str("source") != "proxy" {
			t.Errorf("an event of the model's own guess on a proxied server: %v", ev)
		}
	}
	st := status(t, state)
	servers, _ := st["servers"].([]any)
	mem, _ := servers[0].(map[string]any)
	if mem["proxy_url"] != proxyURL || mem["source"] != "proxy" || mem["proxy_listen"] != listen || mem["proxy_served"] != true {
		t.Errorf("status of mem: proxy_url %v, source %v, listen %v, served %v; want %s and proxy, %s, served",
			mem["proxy_url"], mem["source"], mem["proxy_listen"], mem["proxy_served"], proxyURL, listen)
	}
	if d, _ := st["daemon"].(map[string]any); d["config_file"] != cfg || d["state_dir"] != state || d["pid"] == nil {
		t.Errorf("status says the daemon is %v; want its config file %s and state dir %s", d, cfg, state)
	}
	held, _ := mem["proxy_sessions"].([]any)
	if len(held) != 1 {
		t.Fatalf("status lists %d proxy sessions, want 1: %v", len(held), mem["proxy_sessions"])
	}
	ps, _ := held[0].(map[string]any)
	if ps["id"] != daemontest.MaskedID(cs.ID()) || ps["client"] != daemontest.HostClient() || ps["upstream"] == nil {
		t.Errorf("proxy session %v; want the host's id masked (%s), its client name and an upstream session", ps, daemontest.MaskedID(cs.ID()))
	}
}

// callAcrossAnExpiry connects to the proxy as the host and calls a tool,
// waits past the server's 3 s idle timeout and calls again: that call
// must succeed through the proxy.
func callAcrossAnExpiry(t *testing.T, proxyURL string) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	cs, err := demoserver.Connect(ctx, proxyURL, daemontest.HostClient())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	if _, err := cs.CallTool(ctx, toolCall("echo")); err != nil {
		t.Fatal(err)
	}
	time.Sleep(4500 * time.Millisecond)
	if _, err := cs.CallTool(ctx, toolCall("echo")); err != nil {
		t.Fatalf("the call after the expiry failed through the proxy: %v", err)
	}
	return cs
}

func appendTo(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}

// A proxy_listen port another program holds: a warning naming the
// address that is not served (not the URL: the journal never holds the
// secret), the daemon goes on, and its status says the proxy is not
// served and why (hosts pointed at it fail: `hosts` must not say proxied).
func TestProxyPortTakenWarns(t *testing.T) {
	t.Parallel()
	_, cfg, state := daemontest.KeepWarmSetup(t, false, "")
	held, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	appendTo(t, cfg, "proxy_listen = \""+held.Addr().String()+"\"\n")
	startDaemon(t, cfg, state)
	daemontest.WaitFor(t, 5*time.Second, "the warning", func() bool {
		for _, ev := range daemontest.Journal(t, state, "warning") {
			if d := ev.Str("detail"); strings.Contains(d, held.Addr().String()) {
				if secret := strings.Split(daemontest.ProxyURL(t, state, "x"), "/")[3]; strings.Contains(d, secret) {
					t.Fatalf("the warning holds the proxy's secret: %q", d)
				}
				return true
			}
		}
		return false
	})
	st := status(t, state)
	if st == nil {
		t.Fatal("the daemon does not answer after its proxy could not listen")
	}
	servers, _ := st["servers"].([]any)
	mem, _ := servers[0].(map[string]any)
	if mem["proxy_served"] == true || !strings.Contains(fmt.Sprint(mem["proxy_problem"]), "address already in use") || mem["proxy_listen"] != held.Addr().String() {
		t.Errorf("status of a proxy whose port is held: served %v, problem %v, listen %v", mem["proxy_served"], mem["proxy_problem"], mem["proxy_listen"])
	}
}

// The server's own word on its idle timeout (its log announces 3 s while
// the config says an hour) reaches its proxy, which keeps a present host's
// session warm at that pace.
func TestProxyKeepsWarmAtTheAnnouncedTimeout(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srvLog := filepath.Join(dir, "server.log")
	srv, err := demoserver.Start(context.Background(), demoserver.Options{IdleTimeout: 3 * time.Second, LogPath: srvLog})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	listen := daemontest.FreePort(t)
	cfg := daemontest.WriteConfig(t, dir, fmt.Sprintf("[host]\nprocess = \"\"\nport = 0\n[[server]]\nname = \"mem\"\nurl = %q\nlogs = [%q]\nidle_timeout = \"1h\"\nkeep_warm = true\nproxy_listen = %q\n",
		srv.URL(), srvLog, listen))
	state := filepath.Join(dir, "state")
	startDaemon(t, cfg, state)
	daemontest.WaitEvent(t, state, "server_mode", 1, 5*time.Second)
	ctx := context.Background()
	cs, err := demoserver.Connect(ctx, daemontest.ProxyURL(t, state, listen), "some-host")
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	time.Sleep(8 * time.Second) // well past the server's 3 s, with no call
	if _, err := cs.CallTool(ctx, toolCall("echo")); err != nil {
		t.Fatal(err)
	}
	if ended := srv.Ended(); len(ended) != 0 {
		t.Errorf("the server ended %d sessions: the proxy kept warm at the config's hour, not the announced 3 s", len(ended))
	}
}

// One server, two entries: "mem" for hosts that reach it directly and
// "mem-proxy" for those sent through the proxy. A host of the same client
// name behind the proxy: the upstream session the proxy opened for it is
// in mem's store under the host's client name, yet it is the proxy's (its
// own word), so mem must not take it for its host's: its expiry is no
// incident of mem's, nothing heals there, and only the proxy's entry
// tells the loss it met.
func TestDirectEntryLeavesTheProxysSessionsAlone(t *testing.T) {
	t.Parallel()
	srv, cfg, state := daemontest.KeepWarmSetup(t, false, "")
	listen := daemontest.FreePort(t)
	appendTo(t, cfg, fmt.Sprintf("[[server]]\nname = \"mem-proxy\"\nurl = %q\nidle_timeout = \"3s\"\nkeep_warm = false\nproxy_listen = %q\n",
		srv.URL(), listen))
	startDaemon(t, cfg, state)
	callAcrossAnExpiry(t, daemontest.ProxyURL(t, state, listen))
	rec := daemontest.WaitEvent(t, state, "recovered", 1, 5*time.Second)
	// The barrier: mem journals the lost upstream session's end (from the
	// server's log), so whatever mem makes of that end is journaled by now.
	lost := rec.Str("session")
	daemontest.WaitFor(t, 10*time.Second, "mem to journal the lost upstream session's end", func() bool {
		for _, ev := range daemontest.Journal(t, state, "session_expired", "session_ended", "session_lost") {
			if ev.Str("server") == "mem" && ev.Str("session") == lost {
				return true
			}
		}
		return false
	})
	for _, ev := range daemontest.Journal(t, state, "session_lost", "session_expired", "heal_started", "heal_failed", "recovered", "keep_warm") {
		if ev.Str("server") == "mem" && (ev["incident"] == true || ev.Str("kind") != "session_expired") {
			t.Errorf("mem took the proxy's upstream session for its host's: %v", ev)
		}
	}
}
