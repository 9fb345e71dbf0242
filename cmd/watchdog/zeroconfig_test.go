package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwatchdog/watchdog/internal/doctor"
	"github.com/mcpwatchdog/watchdog/internal/testbed/daemontest"
)

// zeroConfigEnv runs the watchdog on home with no config file anywhere:
// its XDG folders inside home, WATCHDOG_CONFIG empty.
func zeroConfigEnv(home, state string) []string {
	return []string{"HOME=" + home, "WATCHDOG_CONFIG=", "WATCHDOG_STATE_DIR=" + state,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "XDG_DATA_HOME=" + filepath.Join(home, ".local/share"),
		"XDG_STATE_HOME=" + filepath.Join(home, ".local/state")}
}

// Measured: on a machine with only Cursor configured, doctor with no
// config file printed six FIX lines, four about DSH's logs, its client
// module and Nowledge Mem, none installed. Now it raises nothing about
// what is not on the machine, and says in one line what it watches.
func TestZeroConfigDoctorSeesTheMachine(t *testing.T) {
	t.Parallel()
	mem := startMem(t)
	h := newCursorHome(t, map[string]string{"mem": mem.URL()})
	env := zeroConfigEnv(h.home, h.state)
	_, out, errOut := runWatchdogEnv(t, env, "doctor", "--json")
	var rep doctor.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("doctor --json: %v: %s%s", err, out, errOut)
	}
	var said bool
	for _, f := range rep.Findings {
		text := f.Check + ": " + f.Detail
		if strings.Contains(text, "DSH") || strings.Contains(text, "dsh-mcp-client") || strings.Contains(strings.ToLower(text), "nowledge") {
			t.Errorf("doctor speaks of what is not on the machine: %s", text)
		}
		if f.Problem && f.Check != "daemon" && f.Check != "host Cursor" {
			t.Errorf("problem on a machine with nothing wrong but an unadopted server: %s (fix: %s)", text, f.Fix)
		}
		if f.Check == "config" {
			said = f.OK && strings.Contains(f.Detail, "no config file") && strings.Contains(f.Detail, "Cursor (1 server)")
			if !said {
				t.Errorf("config finding %q", f.Detail)
			}
		}
	}
	if !said {
		t.Errorf("doctor does not say what it watches and why:\n%s", out)
	}
	if _, text, _ := runWatchdogEnv(t, env, "doctor"); strings.Count(text, "no config file") != 1 {
		t.Errorf("doctor's text does not say it in one line:\n%s", text)
	}
}

// Measured: a daemon started with no config watched nowledge-mem at
// 127.0.0.1:14242 and not Cursor's server. Now it watches Cursor's server,
// and no DSH or Nowledge Mem where neither is installed.
func TestZeroConfigDaemonWatchesTheMachine(t *testing.T) {
	t.Parallel()
	mem := startMem(t)
	h := newCursorHome(t, map[string]string{"mem": mem.URL()})
	env := zeroConfigEnv(h.home, h.state)
	p := startZeroConfigDaemon(t, env, h.state)
	defer p.Stop(t)
	st := zeroConfigStatus(t, env)
	servers := st["servers"].([]any)
	if len(servers) != 1 {
		t.Fatalf("status watches %d servers, want Cursor's one:\n%v", len(servers), st)
	}
	s := servers[0].(map[string]any)
	if s["name"] != "mem" || s["url"] != mem.URL() {
		t.Errorf("status's server %v, want mem at %s", s, mem.URL())
	}
	if name := st["host"].(map[string]any)["name"]; name != "Cursor" {
		t.Errorf("status's host %v, want Cursor", name)
	}
}

// A host pointed at the watchdog's proxy (adopt's record says for which
// server) is watched through that proxy with no config file: the daemon
// serves the proxy, the status names the server's own URL (never a proxy
// in front of a proxy), and the host's calls go through.
func TestZeroConfigAdoptedThroughTheirProxies(t *testing.T) {
	t.Parallel()
	mem := startMem(t)
	h := newCursorHome(t, map[string]string{"mem": mem.URL()})
	if code, out, errOut := h.run(t, "hosts", "adopt", "Cursor", "--no-autostart"); code != 0 {
		t.Fatalf("adopt exit %d:\n%s%s", code, out, errOut)
	}
	proxied := h.url(t, "mem")
	if proxied == mem.URL() {
		t.Fatal("adopt did not rewrite Cursor's URL")
	}
	if err := os.Remove(h.cfg); err != nil {
		t.Fatal(err)
	}
	env := zeroConfigEnv(h.home, h.state)
	p := startZeroConfigDaemon(t, env, h.state)
	defer p.Stop(t)
	st := zeroConfigStatus(t, env)
	servers := st["servers"].([]any)
	if len(servers) != 1 {
		t.Fatalf("status watches %d servers, want Cursor's one:\n%v", len(servers), st)
	}
	s := servers[0].(map[string]any)
	if s["url"] != mem.URL() || s["proxy_listen"] == "" || s["proxy_listen"] == nil {
		t.Errorf("status's server %v, want mem's own URL %s through a proxy", s, mem.URL())
	}
	call(t, proxied)
}

func startZeroConfigDaemon(t *testing.T, env []string, state string) *daemontest.Proc {
	t.Helper()
	cmd := watchdogCmd(t, "run", "--headless")
	cmd.Env = append(cmd.Env, env...)
	return daemontest.Start(t, cmd, state)
}

func zeroConfigStatus(t *testing.T, env []string) map[string]any {
	t.Helper()
	code, out, errOut := runWatchdogEnv(t, env, "status", "--json")
	if code != 0 {
		t.Fatalf("status exit %d: %s", code, errOut)
	}
	var st map[string]any
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatalf("status --json: %v: %s", err, out)
	}
	return st
}
