package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwatchdog/watchdog/internal/autostart"
	"github.com/mcpwatchdog/watchdog/internal/demoserver"
	"github.com/mcpwatchdog/watchdog/internal/instance"
)

// Measured: with no watchdog running, adopt rewrote Cursor's file to a
// proxy nothing served (and said so): Cursor's calls failed until the
// user started a watchdog. Now adopt starts one, here (no supervisor set
// up: no systemd user manager, not macOS) in the background as the XDG
// autostart entry runs it, waits until it serves the new proxy, and only
// then says done: a host's call through the adopted URL works at once,
// and `hosts` says proxied.
func TestAdoptStartsAWatchdog(t *testing.T) {
	t.Parallel()
	mem := startMem(t)
	h := newCursorHome(t, map[string]string{"mem": mem.URL()})
	env := append(h.env, "XDG_CONFIG_HOME="+filepath.Join(h.home, ".config"))
	t.Cleanup(func() { endStarted(t, h.state) })
	code, out, errOut := runWatchdogEnv(t, env, "hosts", "adopt", "Cursor")
	returned := time.Now()
	if code != 0 || !strings.Contains(out, "the running watchdog serves the proxies") || !strings.Contains(out, "started a watchdog") {
		t.Fatalf("adopt exit %d:\n%s%s", code, out, errOut)
	}
	t.Logf("adopt:\n%s", out)
	if want := " run --proxy-process spawn --config " + h.cfg + " --state-dir " + h.state + ";"; !strings.Contains(out, want) {
		t.Errorf("adopt does not say it started the watchdog as the XDG entry runs it, with its config and state (%q)", want)
	}
	if _, err := os.Stat(filepath.Join(h.state, autostart.DaemonLog)); err != nil {
		t.Errorf("the started watchdog's log: %v", err)
	}
	url := h.url(t, "mem")
	if url == mem.URL() {
		t.Fatal("adopt did not rewrite Cursor's URL")
	}
	callBy(t, url, returned.Add(5*time.Second))
	doc, raw := listHosts(t, env)
	if p, _ := doc.protection("Cursor", "mem"); p != "proxied" {
		t.Fatalf("after adopt, hosts says mem is %q:\n%s", p, raw)
	}
}

// --no-start is today's adopt: it starts nothing, and says that no
// watchdog serves the adopted servers, and how to start one.
func TestAdoptNoStartStartsNothing(t *testing.T) {
	t.Parallel()
	mem := startMem(t)
	h := newCursorHome(t, map[string]string{"mem": mem.URL()})
	env := append(h.env, "XDG_CONFIG_HOME="+filepath.Join(h.home, ".config"))
	t.Cleanup(func() { endStarted(t, h.state) })
	code, out, errOut := runWatchdogEnv(t, env, "hosts", "adopt", "Cursor", "--no-start")
	want := "no watchdog serves them now: Cursor's adopted servers fail until one does (`watchdog run`, and `watchdog autostart enable` to keep it running)"
	if code != 0 || !strings.Contains(out, want) || strings.Contains(out, "started a watchdog") {
		t.Fatalf("adopt --no-start exit %d:\n%s%s", code, out, errOut)
	}
	if h.url(t, "mem") == mem.URL() {
		t.Fatal("adopt --no-start did not rewrite Cursor's URL")
	}
	for _, f := range []string{instance.PIDFile, instance.ProxyPIDFile} {
		if _, err := os.Stat(filepath.Join(h.state, f)); !os.IsNotExist(err) {
			t.Errorf("%s after adopt --no-start: %v", f, err)
		}
	}
	if pids := processesOf(h.state); len(pids) != 0 {
		t.Errorf("adopt --no-start started processes %v", pids)
	}
	doc, raw := listHosts(t, env)
	if p, _ := doc.protection("Cursor", "mem"); p != "proxy down" {
		t.Fatalf("after adopt --no-start, hosts says mem is %q:\n%s", p, raw)
	}
}

// A host adopted with --no-start points at a proxy nothing serves
// (`proxy down`); adopt again has nothing to change in its file, and
// starts the watchdog that serves it: the host's call works, and `hosts`
// says proxied.
func TestAdoptAgainStartsTheWatchdog(t *testing.T) {
	t.Parallel()
	mem := startMem(t)
	h := newCursorHome(t, map[string]string{"mem": mem.URL()})
	env := append(h.env, "XDG_CONFIG_HOME="+filepath.Join(h.home, ".config"))
	t.Cleanup(func() { endStarted(t, h.state) })
	if code, out, errOut := runWatchdogEnv(t, env, "hosts", "adopt", "Cursor", "--no-start"); code != 0 {
		t.Fatalf("adopt --no-start exit %d:\n%s%s", code, out, errOut)
	}
	url := h.url(t, "mem")
	code, out, errOut := runWatchdogEnv(t, env, "hosts", "adopt", "Cursor")
	returned := time.Now()
	if code != 0 || !strings.Contains(out, "mem: already goes through the watchdog's proxy") || !strings.Contains(out, "started a watchdog") ||
		!strings.Contains(out, "the running watchdog serves the proxies") {
		t.Fatalf("adopt again exit %d:\n%s%s", code, out, errOut)
	}
	if again := h.url(t, "mem"); again != url {
		t.Fatalf("adopt again rewrote Cursor's URL %s to %s", url, again)
	}
	callBy(t, url, returned.Add(5*time.Second))
	if doc, raw := listHosts(t, env); !strings.Contains(raw, `"proxied"`) {
		t.Fatalf("after adopt again, hosts:\n%s", raw)
	} else if p, _ := doc.protection("Cursor", "mem"); p != "proxied" {
		t.Fatalf("after adopt again, mem is %q", p)
	}
}

// callBy makes one tool call at url as a host would (the Go SDK's
// client), and fails the test unless it succeeds by deadline.
func callBy(t *testing.T, url string, deadline time.Time) {
	t.Helper()
	ctx, cancel := context.WithDeadline(t.Context(), deadline)
	defer cancel()
	cs, err := demoserver.Connect(ctx, url, "cursor-vscode")
	if err != nil {
		t.Fatalf("connecting at %s: %v", url, err)
	}
	defer cs.Close()
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}}); err != nil {
		t.Fatalf("a call at %s: %v", url, err)
	}
}

// endStarted ends every process that runs for the state directory state
// (a daemon adopt started, the proxy process it spawned): the daemon
// first, by its pid file, so that it spawns no other; then the proxy
// process, by its own; then, on Linux, any other whose command line
// names state (one caught between its start and its pid file), which
// fails the test: nothing else should run.
func endStarted(t *testing.T, state string) {
	t.Helper()
	for _, f := range []string{instance.PIDFile, instance.ProxyPIDFile} {
		b, err := os.ReadFile(filepath.Join(state, f))
		if err != nil {
			continue
		}
		var pid int
		if _, err := fmt.Sscan(string(b), &pid); err == nil && pid > 0 {
			endProcess(t, pid)
		}
	}
	for _, pid := range processesOf(state) {
		t.Errorf("pid %d still ran for %s", pid, state)
		endProcess(t, pid)
	}
}

// processesOf lists the processes whose command line has `--state-dir
// state` (Linux; elsewhere none are found).
func processesOf(state string) []int {
	if runtime.GOOS != "linux" {
		return nil
	}
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		var pid int
		if _, err := fmt.Sscan(e.Name(), &pid); err != nil || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && bytes.Contains(b, []byte("--state-dir\x00"+state+"\x00")) && !zombie(pid) {
			out = append(out, pid)
		}
	}
	return out
}

// zombie: the process has exited and waits to be reaped (Linux).
func zombie(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	_, rest, _ := strings.Cut(string(b), ") ")
	return err == nil && strings.HasPrefix(rest, "Z")
}
