package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwatchdog/watchdog/internal/testbed/daemontest"
)

// spawnedProxy starts a daemon in spawn mode (what the XDG entry runs) on
// a proxied server and waits until its proxy process serves; it returns
// the daemon and the proxy process's pid, ended at the test's end.
func spawnedProxy(t *testing.T, cfg, state string) (*daemontest.Proc, int) {
	t.Helper()
	d := daemontest.Start(t, watchdogCmd(t, "run", "--headless", "--proxy-process", "spawn", "--config", cfg, "--state-dir", state), state)
	daemontest.WaitFor(t, 20*time.Second, "the spawned proxy process to serve", func() bool {
		return proxyStatus(t, cfg, state)["proxy_served"] == true
	})
	pid := proxyPID(t, state)
	t.Cleanup(func() { endProcess(t, pid) })
	return d, pid
}

// Spawn mode, a host calling every 100 ms, the proxy process killed -9
// three times: the daemon holds the proxy's listening socket and hands it
// to each proxy process it starts, as systemd does, so no call meets a
// refused connection; only a call in flight at a kill may fail.
func TestSpawnedProxyKilledRefusesNoConnection(t *testing.T) {
	t.Parallel()
	_, cfg, state, _, url := proxiedSetup(t)
	_, pid := spawnedProxy(t, cfg, state)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs := connectHost(t, ctx, url, "")
	var mu sync.Mutex
	var calls int
	var failed []string
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
			_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "count"})
			mu.Lock()
			calls++
			if err != nil {
				failed = append(failed, err.Error())
			}
			mu.Unlock()
		}
	}()
	for kill := 1; kill <= 3; kill++ {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		daemontest.WaitFor(t, 30*time.Second, "a new proxy process to serve", func() bool {
			next, err := readPID(state)
			return err == nil && next != pid && proxyStatus(t, cfg, state)["proxy_served"] == true
		})
		pid, _ = readPID(state)
		t.Cleanup(func(pid int) func() { return func() { endProcess(t, pid) } }(pid))
		before := callsNow(&mu, &calls)
		daemontest.WaitFor(t, 30*time.Second, "calls to go on after the kill", func() bool { return callsNow(&mu, &calls) >= before+5 })
	}
	close(stop)
	<-done
	mu.Lock()
	defer mu.Unlock()
	for _, f := range failed {
		if strings.Contains(f, "connection refused") {
			t.Errorf("a call met a refused connection: %s", f)
		}
	}
	if len(failed) > 3 {
		t.Errorf("%d of %d calls failed, more than one in flight per kill: %q", len(failed), calls, failed)
	}
	t.Logf("%d calls, %d failed: %q", calls, len(failed), failed)
}

func callsNow(mu *sync.Mutex, n *int) int {
	mu.Lock()
	defer mu.Unlock()
	return *n
}

// readPID is the pid the proxy process of state wrote, while it is
// there.
func readPID(state string) (int, error) {
	b, err := os.ReadFile(filepath.Join(state, "proxy.pid"))
	if err != nil {
		return 0, err
	}
	var pid int
	if _, err := fmt.Sscan(string(b), &pid); err != nil || pid <= 0 {
		return 0, fmt.Errorf("proxy.pid holds %q", b)
	}
	return pid, nil
}

// A watchdog stopped on purpose (SIGTERM, as a logout or `kill` sends)
// leaves no proxy process behind: the daemon that started it ends it.
func TestStoppedDaemonEndsItsProxy(t *testing.T) {
	t.Parallel()
	_, cfg, state, _, _ := proxiedSetup(t)
	d, pid := spawnedProxy(t, cfg, state)
	_ = d.Cmd.Process.Signal(syscall.SIGTERM)
	<-d.Exited()
	daemontest.WaitFor(t, 10*time.Second, "the proxy process to end with its daemon", func() bool { return processGone(pid) })
}

// A proxy process whose state directory is removed (a test's, an
// uninstall's) ends by itself instead of holding its ports for nobody.
func TestProxyEndsWhenItsStateDirIsRemoved(t *testing.T) {
	t.Parallel()
	_, cfg, state, _, _ := proxiedSetup(t)
	d, pid := spawnedProxy(t, cfg, state)
	_ = d.Cmd.Process.Kill() // a crash: the proxy process outlives it
	<-d.Exited()
	if processGone(pid) {
		t.Fatal("the proxy process ended with a daemon that crashed")
	}
	if err := os.RemoveAll(state); err != nil {
		t.Fatal(err)
	}
	daemontest.WaitFor(t, time.Minute, "the proxy process to end once its state directory is gone", func() bool { return processGone(pid) })
}

// processGone: pid is no running process (gone, or a zombie for whoever
// reaps it).
func processGone(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return true
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	_, rest, _ := strings.Cut(string(b), ") ")
	return err == nil && strings.HasPrefix(rest, "Z")
}
