package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/config"
	"github.com/mcpwatchdog/watchdog/internal/doctor"
	"github.com/mcpwatchdog/watchdog/internal/proxyurl"
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
	if code, out, errOut := h.run(t, "hosts", "adopt", "Cursor", "--no-autostart", "--no-start"); code != 0 {
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

// Measured: on a machine with no config file, adopt wrote a config of the
// built-in defaults (nowledge-mem, and a [[host]] DSH "watched before")
// plus the adopted server; a file overrides the machine as found, so the
// daemon then watched DSH and Nowledge Mem again and dropped the other
// hosts it had found. Now adopt writes the machine as found (Cursor's and
// Gemini's servers, Cursor's through its proxy), and release gives the
// machine back.
func TestZeroConfigAdoptKeepsTheMachine(t *testing.T) {
	t.Parallel()
	mem, notes := startMem(t), startMem(t)
	// Names of this test's own: adopt's port comes from the name, and
	// other tests adopt at once.
	h := newCursorHome(t, map[string]string{"asfound-mem": mem.URL()})
	writeFile(t, filepath.Join(h.home, ".gemini", "settings.json"),
		fmt.Sprintf(`{"mcpServers": {"asfound-notes": {"url": %q, "type": "http"}}}`, notes.URL()))
	env := zeroConfigEnv(h.home, h.state)
	p := startZeroConfigDaemon(t, env, h.state)
	defer p.Stop(t)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the daemon's stderr:\n%s", p.Stderr())
		}
	})
	var before map[string]seen
	daemontest.WaitFor(t, 20*time.Second, "the daemon's status", func() bool { before = watchedServers(t, env); return before != nil })
	want := map[string]string{"asfound-mem": mem.URL(), "asfound-notes": notes.URL()}
	if len(before) != 2 || before["asfound-mem"].url != mem.URL() || before["asfound-notes"].url != notes.URL() {
		t.Fatalf("before adopt, the daemon watches %v; want %v", before, want)
	}

	if code, out, errOut := runWatchdogEnv(t, env, "hosts", "adopt", "Cursor", "--no-autostart"); code != 0 {
		t.Fatalf("adopt exit %d:\n%s%s", code, out, errOut)
	}
	cfgPath := filepath.Join(h.home, ".config", "mcp-watchdog", "config.toml")
	checkAsFoundFile(t, cfgPath, h.state, want)
	daemontest.WaitFor(t, 20*time.Second, "the daemon to watch both hosts' servers, Cursor's through its proxy", func() bool {
		now := watchedServers(t, env)
		return len(now) == 2 && now["asfound-mem"].url == mem.URL() && now["asfound-mem"].proxy != "" &&
			now["asfound-notes"] == before["asfound-notes"]
	})
	call(t, h.url(t, "asfound-mem"))

	if code, out, errOut := runWatchdogEnv(t, env, "hosts", "release", "Cursor"); code != 0 {
		t.Fatalf("release exit %d:\n%s%s", code, out, errOut)
	}
	if _, err := os.Stat(cfgPath); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the config adopt made is still there after release: %v", err)
	}
	daemontest.WaitFor(t, 20*time.Second, "the daemon to watch as before adopt", func() bool {
		return maps.Equal(watchedServers(t, env), before)
	})
}

// seen is one server as status shows it.
type seen struct{ url, proxy string }

// watchedServers are the servers the running daemon watches, by name;
// nil while it answers no status (it restarts itself to take a new config).
func watchedServers(t *testing.T, env []string) map[string]seen {
	t.Helper()
	code, text, _ := runWatchdogEnv(t, env, "status", "--json")
	var st struct{ Servers []any }
	if code != 0 || json.Unmarshal([]byte(text), &st) != nil {
		return nil
	}
	out := map[string]seen{}
	for _, s := range st.Servers {
		m := s.(map[string]any)
		proxy, _ := m["proxy_listen"].(string)
		out[m["name"].(string)] = seen{url: m["url"].(string), proxy: proxy}
	}
	return out
}

// checkAsFoundFile: the config adopt wrote watches the servers of want
// (the first through its proxy), the hosts that name them, and nothing
// that is not on the machine; no proxy URL or secret is in it.
func checkAsFoundFile(t *testing.T, path, state string, want map[string]string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("adopt wrote no config: %v", err)
	}
	cfg, err := config.Parse(path, data)
	if err != nil {
		t.Fatalf("the config adopt wrote does not load: %v\n%s", err, data)
	}
	var hosts []string
	for _, hc := range cfg.Hosts {
		hosts = append(hosts, hc.Name)
	}
	if slices.Sort(hosts); !slices.Equal(hosts, []string{"Cursor", "Gemini CLI"}) {
		t.Errorf("the config adopt wrote watches hosts %q, want Cursor and Gemini CLI:\n%s", hosts, data)
	}
	got := map[string]string{}
	for _, s := range cfg.Servers {
		got[s.Name] = s.URL
		if _, isProxy := proxyurl.Parse(s.URL); isProxy {
			t.Errorf("server %s's url is a proxy's", s.Name)
		}
		if (s.ProxyListen != "") != (s.Name == "asfound-mem") {
			t.Errorf("server %s proxy_listen %q: want Cursor's alone through the proxy", s.Name, s.ProxyListen)
		}
	}
	if !maps.Equal(got, want) {
		t.Errorf("the config adopt wrote watches %v, want %v:\n%s", got, want, data)
	}
	secret, err := os.ReadFile(filepath.Join(state, "proxy-secret"))
	if err != nil || len(bytes.TrimSpace(secret)) == 0 || bytes.Contains(data, bytes.TrimSpace(secret)) {
		t.Errorf("the proxy's secret (%v) is in the config adopt wrote", err)
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}
