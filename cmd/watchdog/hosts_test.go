package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwatchdog/watchdog/internal/demoserver"
	"github.com/mcpwatchdog/watchdog/internal/testbed/daemontest"
)

// hostsHome is a home folder with three hosts' config files: Cursor (a
// stateful server, a stateless one and a stdio one), Codex CLI and Claude
// Code, the servers real ones on loopback.
func hostsHome(t *testing.T) (home, stateful, stateless string) {
	t.Helper()
	ctx := t.Context()
	start := func(o demoserver.Options) string {
		o.Addr = "127.0.0.1:0"
		s, err := demoserver.Start(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		return s.URL()
	}
	stateful, stateless = start(demoserver.Options{}), start(demoserver.Options{Stateless: true})
	home = t.TempDir()
	write := func(rel, text string) {
		path := filepath.Join(home, rel)
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".cursor/mcp.json", fmt.Sprintf(`{
  "mcpServers": {
    "mem": {"url": %q, "headers": {"Authorization": "Bearer ${env:TOKEN}"}},
    "modern": {"url": %q},
    "files": {"command": "npx", "args": ["-y", "server-filesystem"]}
  }
}
`, stateful, stateless))
	write(".codex/config.toml", fmt.Sprintf("model = \"m\"\n\n[mcp_servers.mem]\nurl = %q\n", stateful))
	write(".claude.json", fmt.Sprintf(`{"numStartups": 3, "mcpServers": {"mem": {"type": "http", "url": %q}}}`, stateful))
	return home, stateful, stateless
}

type hostsOut struct {
	Hosts []struct {
		Name    string
		Servers []struct {
			Name, URL, Protection, Fix, Upstream string
		}
	}
}

func listHosts(t *testing.T, env []string) (hostsOut, string) {
	t.Helper()
	code, out, errOut := runWatchdogEnv(t, env, "hosts", "--json")
	if code != 0 {
		t.Fatalf("hosts exit %d: %s", code, errOut)
	}
	var doc hostsOut
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	return doc, out
}

func (d hostsOut) protection(host, server string) (string, string) {
	for _, h := range d.Hosts {
		for _, s := range h.Servers {
			if h.Name == host && s.Name == server {
				return s.Protection, s.Fix
			}
		}
	}
	return "", ""
}

// TestHostsSaysWhatProtectsEachServer: every host with a file is listed,
// each server with the protection its host, transport and a probe give it,
// and an exposed one with the one command that protects it.
func TestHostsSaysWhatProtectsEachServer(t *testing.T) {
	t.Parallel()
	home, _, _ := hostsHome(t)
	state := t.TempDir()
	doc, _ := listHosts(t, []string{"HOME=" + home, "WATCHDOG_STATE_DIR=" + state})
	var names []string
	for _, h := range doc.Hosts {
		if h.Name == "Claude Code" || h.Name == "Cursor" || h.Name == "Codex CLI" {
			names = append(names, h.Name) // others may run on this machine
		}
	}
	if strings.Join(names, ",") != "Claude Code,Cursor,Codex CLI" {
		t.Fatalf("hosts %v", names)
	}
	for _, tt := range []struct{ host, server, protection, fix string }{
		{"Cursor", "mem", "exposed", "watchdog hosts adopt Cursor --server mem"},
		{"Cursor", "modern", "stateless", ""},
		{"Cursor", "files", "exposed", "watchdog hosts adopt Cursor --server files"},
		{"Codex CLI", "mem", "self-healing", ""},
		{"Claude Code", "mem", "self-healing", ""},
	} {
		if p, fix := doc.protection(tt.host, tt.server); p != tt.protection || fix != tt.fix {
			t.Errorf("%s %s: %q %q; want %q %q", tt.host, tt.server, p, fix, tt.protection, tt.fix)
		}
	}
}

// TestHostsAdoptAndRelease: the CLI adopts Cursor's exposed server with
// --no-start and says that no watchdog runs; the listing then says "proxy down" (the
// host's calls fail until a daemon serves the proxy), never printing the
// proxy's secret; release gives Cursor's file back byte for byte.
func TestHostsAdoptAndRelease(t *testing.T) {
	t.Parallel()
	home, stateful, _ := hostsHome(t)
	state, cfgDir := t.TempDir(), t.TempDir()
	env := []string{"HOME=" + home, "WATCHDOG_STATE_DIR=" + state, "XDG_CONFIG_HOME=" + cfgDir}
	file := filepath.Join(home, ".cursor", "mcp.json")
	orig, _ := os.ReadFile(file)
	code, out, errOut := runWatchdogEnv(t, env, "hosts", "adopt", "Cursor", "--server", "mem", "--no-start")
	if code != 0 || !strings.Contains(out, "restart Cursor") || !strings.Contains(out, "no watchdog serves them now") {
		t.Fatalf("adopt exit %d: %s %s", code, out, errOut)
	}
	secret, err := os.ReadFile(filepath.Join(state, "proxy-secret"))
	if err != nil {
		t.Fatal(err)
	}
	doc, raw := listHosts(t, env)
	// No watchdog runs here: the host calls a proxy nobody serves.
	if p, fix := doc.protection("Cursor", "mem"); p != "proxy down" || !strings.Contains(fix, "watchdog run") {
		t.Fatalf("after adopt, with no watchdog running: %q %q\n%s", p, fix, raw)
	}
	if s := strings.TrimSpace(string(secret)); strings.Contains(raw, s) || strings.Contains(out, s) {
		t.Fatal("the proxy's secret was printed")
	}
	if !strings.Contains(raw, stateful) {
		t.Errorf("the listing does not say which server the proxy stands for:\n%s", raw)
	}
	if code, out, errOut := runWatchdogEnv(t, env, "hosts", "release", "cursor"); code != 0 {
		t.Fatalf("release exit %d: %s %s", code, out, errOut)
	}
	if got, _ := os.ReadFile(file); string(got) != string(orig) {
		t.Fatalf("after release:\n%s", got)
	}
	code, _, errOut = runWatchdogEnv(t, env, "hosts", "release", "cursor")
	if code != exitUsage || !strings.Contains(errOut, "not adopted") {
		t.Fatalf("second release: exit %d: %s", code, errOut)
	}
}

// TestHostsAdoptRefusesAnUnknownHost names the hosts it knows.
func TestHostsAdoptRefusesAnUnknownHost(t *testing.T) {
	t.Parallel()
	code, _, errOut := runWatchdogEnv(t, []string{"HOME=" + t.TempDir(), "WATCHDOG_STATE_DIR=" + t.TempDir()}, "hosts", "adopt", "Acme")
	if code != exitUsage || !strings.Contains(errOut, `"Acme"`) || !strings.Contains(errOut, "Claude Code") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
}

// TestDoctorListsExposedServers: doctor names each exposed server of each
// host found, with the command that protects it, and counts it a problem.
func TestDoctorListsExposedServers(t *testing.T) {
	t.Parallel()
	home, _, _ := hostsHome(t)
	code, out, errOut := runWatchdogEnv(t, []string{"HOME=" + home, "WATCHDOG_STATE_DIR=" + t.TempDir()}, "doctor", "--json")
	if code != exitFailed {
		t.Fatalf("doctor exit %d: %s", code, errOut)
	}
	var rep struct {
		Findings []struct {
			Check, Detail, Fix string
			Problem            bool
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	var exposed, protected bool
	for _, f := range rep.Findings {
		switch {
		case f.Check == "host Cursor" && f.Problem && strings.HasPrefix(f.Detail, "mem ") && f.Fix == "watchdog hosts adopt Cursor --server mem":
			exposed = true
		case f.Check == "host Codex CLI" && !f.Problem && strings.Contains(f.Detail, "mem self-healing"):
			protected = true
		}
	}
	if !exposed || !protected {
		t.Fatalf("doctor findings (exposed %v, protected %v):\n%s", exposed, protected, out)
	}
}

// TestStatusShowsTheHostsFound: the running daemon's status lists each
// host found on the machine with its servers' protection.
func TestStatusShowsTheHostsFound(t *testing.T) {
	t.Parallel()
	home, _, _ := hostsHome(t)
	dir := t.TempDir()
	cfg := daemontest.WriteConfig(t, dir, "[host]\nprocess = \"\"\nport = 0\n[[server]]\nname = \"mem\"\nurl = \"http://127.0.0.1:9/mcp\"\n")
	state := filepath.Join(dir, "state")
	p := startDaemonEnv(t, cfg, state, "HOME="+home)
	defer p.Stop(t)
	var hostsSeen []any
	daemontest.WaitFor(t, 20*time.Second, "the hosts in the status", func() bool {
		st := statusJSON(t, cfg, state)
		hostsSeen, _ = st["hosts"].([]any)
		return len(hostsSeen) > 0
	})
	raw, _ := json.Marshal(hostsSeen)
	for _, want := range []string{`"name":"Cursor"`, `"protection":"exposed"`, `"fix":"watchdog hosts adopt Cursor --server mem"`, `"name":"Codex CLI"`} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("status hosts lack %s: %s", want, raw)
		}
	}
}

// TestAdoptWhileTheDaemonRuns: `hosts adopt` rewrites the config of a
// running daemon, and returns only once the daemon serves the new proxy
// (before the host's file is rewritten: the host is never pointed at a
// proxy that is not there); the daemon journals host_adopted; release is
// journaled as host_released.
func TestAdoptWhileTheDaemonRuns(t *testing.T) {
	t.Parallel()
	home, stateful, _ := hostsHome(t)
	dir := t.TempDir()
	cfg := daemontest.WriteConfig(t, dir, fmt.Sprintf("[host]\nprocess = \"\"\nport = 0\n[[server]]\nname = \"mem\"\nurl = %q\nkeep_warm = false\n", stateful))
	state := filepath.Join(dir, "state")
	env := []string{"HOME=" + home}
	p := startDaemonEnv(t, cfg, state, env...)
	defer p.Stop(t)
	if code, out, errOut := runWatchdogEnv(t, env, "hosts", "adopt", "Cursor", "--server", "mem", "--config", cfg, "--state-dir", state); code != 0 {
		t.Fatalf("adopt exit %d: %s %s", code, out, errOut)
	} else if !strings.Contains(out, "the running watchdog serves the proxies") {
		t.Errorf("adopt does not say the daemon took the change: %s", out)
	}
	if code, out, _ := runWatchdogEnv(t, nil, "status", "--json", "--config", cfg, "--state-dir", state); code != 0 || !strings.Contains(out, `"proxy_served":true`) {
		t.Fatalf("adopt returned before the daemon served the proxy: %s", out)
	}
	ev := daemontest.WaitEvent(t, state, "host_adopted", 1, 20*time.Second)
	if ev.Str("host") != "Cursor" || !strings.Contains(ev.Str("detail"), "mem") {
		t.Fatalf("host_adopted %v", ev)
	}
	daemontest.WaitFor(t, 20*time.Second, "the proxy in the status", func() bool {
		code, out, _ := runWatchdogEnv(t, nil, "status", "--json", "--config", cfg, "--state-dir", state)
		return code == 0 && strings.Contains(out, `"proxy_url"`)
	})
	if code, out, errOut := runWatchdogEnv(t, env, "hosts", "release", "Cursor", "--config", cfg, "--state-dir", state); code != 0 {
		t.Fatalf("release exit %d: %s %s", code, out, errOut)
	}
	if ev := daemontest.WaitEvent(t, state, "host_released", 1, 20*time.Second); ev.Str("host") != "Cursor" {
		t.Fatalf("host_released %v", ev)
	}
	if n := len(daemontest.Journal(t, state, "host_adopted")); n != 1 {
		t.Fatalf("host_adopted told %d times", n)
	}
}

// Measured: `version` printed the commit twice when the version was the
// commit (`git describe` of an untagged tree).
func TestVersionSaysTheCommitOnce(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ version, commit, want string }{
		{"869ea65-dirty", "869ea65", ""},
		{"v1.2.0", "869ea65", "commit 869ea65, "},
		{"dev", "", ""},
	} {
		if got := commitWords(tt.version, tt.commit); got != tt.want {
			t.Errorf("commitWords(%q, %q) = %q, want %q", tt.version, tt.commit, got, tt.want)
		}
	}
}

// TestAdoptedHostIsWatchedAndToldItsOwn: adopting a host the running
// daemon does not watch (opencode) makes it watched: its losses through the
// proxy are journaled under its own name, not the config's host (DSH);
// release takes it out again and gives the config back as it was.
func TestAdoptedHostIsWatchedAndToldItsOwn(t *testing.T) {
	t.Parallel()
	srv, err := demoserver.Start(t.Context(), demoserver.Options{Addr: "127.0.0.1:0", IdleTimeout: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	home, dir := t.TempDir(), t.TempDir()
	ocFile := filepath.Join(home, ".config", "opencode", "opencode.json")
	if err := os.MkdirAll(filepath.Dir(ocFile), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ocFile, []byte(fmt.Sprintf("{\n  \"mcp\": {\n    \"mem\": {\"type\": \"remote\", \"url\": %q}\n  }\n}\n", srv.URL())), 0o600); err != nil {
		t.Fatal(err)
	}
	cfgText := fmt.Sprintf("[host]\nprocess = \"\"\nport = 0\n[[server]]\nname = \"mem\"\nurl = %q\nidle_timeout = \"3s\"\nkeep_warm = false\n", srv.URL())
	cfg := daemontest.WriteConfig(t, dir, cfgText)
	state := filepath.Join(dir, "state")
	env := []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config")}
	p := startDaemonEnv(t, cfg, state, env...)
	defer p.Stop(t)
	code, out, errOut := runWatchdogEnv(t, env, "hosts", "adopt", "opencode", "--config", cfg, "--state-dir", state)
	if code != 0 || !strings.Contains(out, "now watches opencode") || !strings.Contains(out, "next run reads") {
		t.Fatalf("adopt exit %d: %s %s", code, out, errOut)
	}
	daemontest.WaitFor(t, 20*time.Second, "the daemon to watch opencode", func() bool { return watched(t, cfg, state)["opencode"] })
	proxied := adoptedURL(t, ocFile)
	cs, err := demoserver.Connect(t.Context(), proxied, "opencode")
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	callEcho(t, cs)
	daemontest.WaitFor(t, 20*time.Second, "the server to forget the session", func() bool { return len(srv.SessionIDs()) == 0 })
	callEcho(t, cs)
	if rec := daemontest.WaitEvent(t, state, "recovered", 1, 20*time.Second); rec.Str("host") != "opencode" || rec.Str("source") != "proxy" {
		t.Fatalf("recovered %v; want opencode's, the proxy's word", rec)
	}
	if code, out, errOut := runWatchdogEnv(t, env, "hosts", "release", "opencode", "--config", cfg, "--state-dir", state); code != 0 {
		t.Fatalf("release exit %d: %s %s", code, out, errOut)
	}
	daemontest.WaitFor(t, 20*time.Second, "the daemon to stop watching opencode", func() bool { return !watched(t, cfg, state)["opencode"] })
	if got, _ := os.ReadFile(cfg); string(got) != cfgText {
		t.Fatalf("released, the config is not as it was:\n%s", got)
	}
}

// watched are the hosts the running daemon watches, by its status.
func watched(t *testing.T, cfg, state string) map[string]bool {
	t.Helper()
	code, out, _ := runWatchdogEnv(t, nil, "status", "--json", "--config", cfg, "--state-dir", state)
	var st struct {
		Hosts []struct {
			Name    string
			Watched bool
		}
	}
	if code != 0 || json.Unmarshal([]byte(out), &st) != nil {
		return nil // the daemon taking its changed config does not answer for a moment
	}
	w := map[string]bool{}
	for _, h := range st.Hosts {
		w[h.Name] = w[h.Name] || h.Watched
	}
	return w
}

// adoptedURL is the URL of the one server of opencode's file.
func adoptedURL(t *testing.T, file string) string {
	t.Helper()
	var doc struct {
		MCP map[string]struct{ URL string } `json:"mcp"`
	}
	b, _ := os.ReadFile(file)
	if err := json.Unmarshal(b, &doc); err != nil || len(doc.MCP) != 1 {
		t.Fatalf("%s: %v\n%s", file, err, b)
	}
	for _, s := range doc.MCP {
		return s.URL
	}
	return ""
}

func callEcho(t *testing.T, cs *mcp.ClientSession) {
	t.Helper()
	if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}}); err != nil {
		t.Fatalf("a call through the proxy: %v", err)
	}
}

// TestHostsAdoptHelp: `hosts adopt --help` (and release's) prints the
// usage and exits 0 without adopting anything: no state, no config.
func TestHostsAdoptHelp(t *testing.T) {
	t.Parallel()
	for _, verb := range []string{"adopt", "release"} {
		state, cfgDir := t.TempDir(), t.TempDir()
		env := []string{"HOME=" + t.TempDir(), "WATCHDOG_STATE_DIR=" + state, "XDG_CONFIG_HOME=" + cfgDir}
		for _, help := range []string{"--help", "-h"} {
			code, out, errOut := runWatchdogEnv(t, env, "hosts", verb, help)
			if code != exitOK || !strings.Contains(out+errOut, "-server") || strings.Contains(out+errOut, "no config file") {
				t.Fatalf("hosts %s %s: exit %d: %s %s; want the usage and exit 0", verb, help, code, out, errOut)
			}
		}
		for _, dir := range []string{state, cfgDir} {
			if left, _ := os.ReadDir(dir); len(left) != 0 {
				t.Fatalf("hosts %s --help left %v in %s", verb, left, dir)
			}
		}
	}
}
