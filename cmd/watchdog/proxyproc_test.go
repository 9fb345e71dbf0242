package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwatchdog/watchdog/internal/control"
	"github.com/mcpwatchdog/watchdog/internal/sockact"
	"github.com/mcpwatchdog/watchdog/internal/testbed/daemontest"
	"github.com/mcpwatchdog/watchdog/internal/testbed/sockhold"
	"github.com/mcpwatchdog/watchdog/internal/testbed/tailbuf"
)

// slowServer is a real Go SDK server whose tool "slow" takes 2 s; began
// gets a value each time the tool starts, and runs counts its runs.
func slowServer(t *testing.T) (url string, began <-chan struct{}, runs *atomic.Int64) {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "slow", Version: "1"}, nil)
	started := make(chan struct{}, 16)
	n := &atomic.Int64{}
	mcp.AddTool(srv, &mcp.Tool{Name: "slow", Description: "Answers after 2 s."},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			n.Add(1)
			started <- struct{}{}
			select {
			case <-time.After(2 * time.Second):
			case <-ctx.Done():
				return nil, nil, ctx.Err()
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
		})
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(hs.Close)
	return hs.URL + "/mcp", started, n
}

// superviseSplit runs the proxy process (`watchdog proxy`) under a
// supervisor that holds its proxy sockets, and the daemon
// (`watchdog run --proxy-process supervised`) under another that holds
// its control socket, both restarted after every exit as systemd does
// with the two services and their socket units; it waits until the
// daemon says the proxies are served.
func superviseSplit(t *testing.T, cfg, state string, listen ...string) (proxyH, daemonH *sockhold.Holder) {
	t.Helper()
	stderr := &tailbuf.Buffer{Max: 16 << 20}
	var names []string
	for _, l := range listen {
		names = append(names, sockact.ProxyName(l))
	}
	start := func(opts sockhold.Options, args ...string) *sockhold.Holder {
		opts.Command = func() *exec.Cmd {
			cmd := watchdogCmd(t, append(args, "--config", cfg, "--state-dir", state)...)
			cmd.Stderr = stderr
			return cmd
		}
		h, err := sockhold.Start(opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { h.Stop(syscall.SIGTERM, 10*time.Second) })
		return h
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the processes' stderr:\n%s", stderr)
		}
	})
	proxyH = start(sockhold.Options{TCP: listen, Names: names}, "proxy")
	daemonH = start(sockhold.Options{Unix: []string{control.SocketPath(state)}, Names: []string{sockact.ControlName}},
		"run", "--headless", "--proxy-process", "supervised")
	daemontest.WaitReady(t, state, 0)
	daemontest.WaitFor(t, 20*time.Second, "the daemon to say the proxy process serves the proxies", func() bool {
		return proxyStatus(t, cfg, state)["proxy_served"] == true
	})
	return proxyH, daemonH
}

// The daemon killed with -9 in the middle of a host's slow call through
// the proxy: the call succeeds, because the proxy runs in its own process
// (`watchdog proxy`), which outlives the daemon. The restarted daemon
// links to it again: the status says the proxy is served on the held
// socket, with the host's session. (With the proxy inside the daemon, as
// `watchdog run` alone serves it, this call dies with the daemon.)
func TestDaemonKilledMidCallLosesNoCall(t *testing.T) {
	t.Parallel()
	upstream, began, runs := slowServer(t)
	dir := t.TempDir()
	listen := daemontest.FreePort(t)
	cfg := daemontest.WriteConfig(t, dir, fmt.Sprintf("[host]\nprocess = \"\"\nport = 0\n[[server]]\nname = \"mem\"\nurl = %q\nproxy_listen = %q\nkeep_warm = false\n", upstream, listen))
	state := filepath.Join(dir, "state")
	if err := os.Mkdir(state, 0o700); err != nil {
		t.Fatal(err)
	}
	url := daemontest.ProxyURL(t, state, listen)
	proxyH, daemonH := superviseSplit(t, cfg, state, listen)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs := connectHost(t, ctx, url, "")
	result := make(chan error, 1)
	go func() {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "slow"})
		if err == nil && res.IsError {
			err = fmt.Errorf("tool error: %v", res.Content)
		}
		result <- err
	}()
	select {
	case <-began:
	case <-ctx.Done():
		t.Fatal("the slow call never reached the server")
	}
	if pid := daemonH.Kill(); pid == 0 {
		t.Fatal("no daemon ran to kill")
	}
	if err := <-result; err != nil {
		t.Fatalf("the call in flight when the daemon was killed failed: %v", err)
	}
	if n := runs.Load(); n != 1 {
		t.Errorf("the tool ran %d times for one call", n)
	}
	if proxyH.Starts() != 1 {
		t.Errorf("the proxy process was started %d times; the daemon's kill must not touch it", proxyH.Starts())
	}
	daemontest.WaitReady(t, state, 1)
	daemontest.WaitFor(t, 20*time.Second, "the restarted daemon to say the proxy is served, with the host's session", func() bool {
		mem := proxyStatus(t, cfg, state)
		held, _ := mem["proxy_sessions"].([]any)
		return mem["proxy_served"] == true && mem["proxy_socket"] == "systemd" && mem["proxy_url"] == url && len(held) == 1
	})
	if _, out, _ := runWatchdog(t, "status", "--config", cfg, "--state-dir", state); !strings.Contains(out, listen) {
		t.Errorf("watchdog status does not name the proxy:\n%s", out)
	}
}

// With no supervisor (the XDG entry's `run --proxy-process spawn`), the
// daemon starts the proxy process itself, detached in a session of its
// own: a kill -9 of the daemon leaves it serving, a host's call goes
// through with no daemon at all, and the next daemon links to the same
// proxy process instead of starting another.
func TestSpawnedProxyOutlivesTheDaemon(t *testing.T) {
	t.Parallel()
	srv, cfg, state, _, url := proxiedSetup(t)
	start := func() *daemontest.Proc {
		return daemontest.Start(t, watchdogCmd(t, "run", "--headless", "--proxy-process", "spawn", "--config", cfg, "--state-dir", state), state)
	}
	d := start()
	daemontest.WaitFor(t, 20*time.Second, "the spawned proxy process to serve", func() bool {
		return proxyStatus(t, cfg, state)["proxy_served"] == true
	})
	pid := proxyPID(t, state)
	t.Cleanup(func() { endProcess(t, pid) })
	if pid == d.Cmd.Process.Pid {
		t.Fatal("the proxy runs in the daemon's process")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs := connectHost(t, ctx, url, "")
	call := func(when string) {
		t.Helper()
		if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "count"}); err != nil || res.IsError {
			t.Fatalf("the call %s: %v", when, err)
		}
	}
	call("with the daemon up")
	_ = d.Cmd.Process.Kill()
	<-d.Exited()
	call("with no daemon running")
	start()
	daemontest.WaitFor(t, 20*time.Second, "the next daemon to link to the running proxy process", func() bool {
		return proxyStatus(t, cfg, state)["proxy_served"] == true
	})
	if again := proxyPID(t, state); again != pid {
		t.Errorf("the next daemon started another proxy process (pid %d, was %d)", again, pid)
	}
	call("after the restart")
	if n := srv.Count(); n != 3 {
		t.Errorf("the tool ran %d times for 3 calls", n)
	}
}

// proxyPID is the pid the proxy process of state wrote.
func proxyPID(t *testing.T, state string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(state, "proxy.pid"))
	if err != nil {
		t.Fatal(err)
	}
	var pid int
	if _, err := fmt.Sscan(string(b), &pid); err != nil || pid <= 0 {
		t.Fatalf("proxy.pid holds %q", b)
	}
	return pid
}

// endProcess ends a process this test started but is not the parent of
// (a detached proxy process) by its pid: SIGTERM, and SIGKILL if it is
// still there after 10 s; it waits until it is gone (or a zombie for
// whoever reaps it).
func endProcess(t *testing.T, pid int) {
	t.Helper()
	gone := func() bool {
		if syscall.Kill(pid, 0) != nil {
			return true
		}
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)) // Linux: a zombie is gone too
		_, rest, _ := strings.Cut(string(b), ") ")
		return err == nil && strings.HasPrefix(rest, "Z")
	}
	_ = syscall.Kill(pid, syscall.SIGTERM)
	deadline := time.Now().Add(10 * time.Second)
	for !gone() {
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			deadline = time.Now().Add(time.Minute)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// `hosts` says `proxy down` while the daemon runs but its proxy process
// does not, `proxied` once the proxy process serves (and still while the
// daemon is down: the proxy process's own word), and `proxy down` again
// as soon as it is killed.
func TestHostsSaysProxyDownWhileTheProxyProcessIsDown(t *testing.T) {
	t.Parallel()
	home, _, _ := hostsHome(t)
	state, cfgDir := t.TempDir(), t.TempDir()
	env := []string{"HOME=" + home, "WATCHDOG_STATE_DIR=" + state, "XDG_CONFIG_HOME=" + cfgDir}
	if code, out, errOut := runWatchdogEnv(t, env, "hosts", "adopt", "Cursor", "--server", "mem", "--no-autostart", "--no-start"); code != 0 {
		t.Fatalf("adopt exit %d: %s %s", code, out, errOut)
	}
	cmd := watchdogCmd(t, "run", "--headless", "--proxy-process", "supervised")
	cmd.Env = append(cmd.Env, env...)
	d := daemontest.Start(t, cmd, state)
	protection := func() string {
		doc, _ := listHosts(t, env)
		p, _ := doc.protection("Cursor", "mem")
		return p
	}
	if p := protection(); p != "proxy down" {
		t.Fatalf("with no proxy process: %q, want proxy down", p)
	}
	px := watchdogCmd(t, "proxy")
	px.Env = append(px.Env, env...)
	px.Stderr = &tailbuf.Buffer{Max: 1 << 20}
	if err := px.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = px.Wait(); close(exited) }()
	t.Cleanup(func() { _ = px.Process.Kill(); <-exited })
	daemontest.WaitFor(t, 20*time.Second, "hosts to say proxied once the proxy process serves", func() bool { return protection() == "proxied" })
	_ = d.Cmd.Process.Kill()
	<-d.Exited()
	if p := protection(); p != "proxied" {
		t.Errorf("with the daemon killed and the proxy process serving: %q, want proxied", p)
	}
	_ = px.Process.Kill()
	<-exited
	daemontest.WaitFor(t, 20*time.Second, "hosts to say proxy down once the proxy process is killed", func() bool { return protection() == "proxy down" })
}

// connectHost connects to url as a host would (the Go SDK's client, named
// some-host), closed at the test's end; a failure fails the test, with
// what (when not "") said beside the error.
func connectHost(t *testing.T, ctx context.Context, url, what string) *mcp.ClientSession {
	t.Helper()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "some-host", Version: "1"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatalf("connecting at %s: %v %s", url, err, what)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}
