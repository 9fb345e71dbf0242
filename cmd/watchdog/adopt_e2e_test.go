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

	"github.com/mcpwatchdog/watchdog/internal/demoserver"
	"github.com/mcpwatchdog/watchdog/internal/host"
	"github.com/mcpwatchdog/watchdog/internal/host/hostfile"
	"github.com/mcpwatchdog/watchdog/internal/testbed/daemontest"
	"github.com/mcpwatchdog/watchdog/internal/testbed/tsserver"
)

// cursorHome is a HOME whose Cursor has the servers named, and the
// environment that runs the watchdog on it with its own state and config.
type cursorHome struct {
	home, state, cfg string
	env              []string
}

// A server named mem gets a [[server]] with a proxy on a free port in the
// config beforehand (adopt takes it): the port adopt would pick from the
// name is the same for every test, and tests run at once.
func newCursorHome(t *testing.T, servers map[string]string) *cursorHome {
	t.Helper()
	h := &cursorHome{home: t.TempDir()}
	h.state = filepath.Join(h.home, "state")
	h.cfg = filepath.Join(h.home, "watchdog.toml")
	var entries []string
	for name, url := range servers {
		entries = append(entries, fmt.Sprintf("%q: {%q: %q}", name, "url", url))
	}
	file := filepath.Join(h.home, ".cursor", "mcp.json")
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(`{"mcpServers": {`+strings.Join(entries, ", ")+`}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := "[host]\nprocess = \"\"\nport = 0\n"
	if mem, ok := servers["mem"]; ok {
		cfg += fmt.Sprintf("[[server]]\nname = \"mem\"\nurl = %q\nproxy_listen = %q\n", mem, daemontest.FreePort(t))
	}
	if err := os.WriteFile(h.cfg, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	h.env = []string{"HOME=" + h.home, "WATCHDOG_STATE_DIR=" + h.state, "WATCHDOG_CONFIG=" + h.cfg}
	return h
}

// url is the URL Cursor's file gives server name now.
func (h *cursorHome) url(t *testing.T, name string) string {
	t.Helper()
	path := filepath.Join(h.home, ".cursor", "mcp.json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ss, err := hostfile.Servers(hostfile.JSON, data, host.Cursor().Layout)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range ss {
		if s.Name == name {
			return s.URL
		}
	}
	t.Fatalf("Cursor has no server %s:\n%s", name, data)
	return ""
}

func (h *cursorHome) run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	return runWatchdogEnv(t, h.env, args...)
}

func (h *cursorHome) daemon(t *testing.T) *daemontest.Proc {
	t.Helper()
	return startDaemonEnv(t, h.cfg, h.state, h.env...)
}

// Measured: a server that signs in with MCP's OAuth, in Cursor's config,
// was called exposed, offered to adopt and rewritten; a TypeScript SDK
// host then failed to sign in, and hosts said proxied. Now (the server is
// the TypeScript SDK's own auth router and bearer check) hosts calls it
// oauth and offers nothing; adopt leaves it alone and says why; named, it
// is refused unless --force, which warns; once it is proxied anyway, the
// daemon journals a warning and doctor and hosts give the release command.
func TestOAuthServerLeftAloneByAdopt(t *testing.T) {
	t.Parallel()
	oauth := tsserver.StartOAuth(t)
	mem := startMem(t)
	h := newCursorHome(t, map[string]string{"remote": oauth.URL(), "mem": mem.URL()})
	doc, raw := listHosts(t, h.env)
	if p, fix := doc.protection("Cursor", "remote"); p != "oauth" || fix != "" {
		t.Fatalf("hosts says remote is %q, fix %q:\n%s", p, fix, raw)
	}
	code, out, errOut := h.run(t, "hosts", "adopt", "Cursor", "--no-start")
	if code != 0 || !strings.Contains(out, "remote: left alone: it signs in with OAuth") || !strings.Contains(out, "mem: now through the watchdog's proxy") {
		t.Fatalf("adopt exit %d:\n%s%s", code, out, errOut)
	}
	if h.url(t, "remote") != oauth.URL() {
		t.Fatal("adopt rewrote the OAuth server's URL")
	}
	if got := tsserver.SignIn(t, h.url(t, "remote")); got != "OK signed-in" {
		t.Fatalf("the host signing in at the URL adopt left: %q", got)
	}
	if code, _, errOut := h.run(t, "hosts", "adopt", "Cursor", "--server", "remote"); code != exitUsage || !strings.Contains(errOut, "--force") {
		t.Fatalf("adopt --server remote: exit %d: %s", code, errOut)
	}

	p := h.daemon(t)
	defer p.Stop(t)
	code, out, errOut = h.run(t, "hosts", "adopt", "Cursor", "--server", "remote", "--force")
	if code != 0 || !strings.Contains(out, "warning: it signs in with OAuth") {
		t.Fatalf("adopt --force exit %d:\n%s%s", code, out, errOut)
	}
	if got := tsserver.SignIn(t, h.url(t, "remote")); !strings.Contains(got, "does not match") {
		t.Fatalf("signing in through the proxy: %q", got)
	}
	ev := daemontest.WaitEvent(t, h.state, "warning", 1, 20*time.Second)
	if d := ev.Str("detail"); !strings.Contains(d, "signs in with OAuth") || !strings.Contains(d, "watchdog hosts release Cursor --server remote") {
		t.Fatalf("warning %q", d)
	}
	daemontest.WaitFor(t, 20*time.Second, "hosts to say oauth with the release command", func() bool {
		doc, _ := listHosts(t, h.env)
		p, fix := doc.protection("Cursor", "remote")
		return p == "oauth" && fix == "watchdog hosts release Cursor --server remote"
	})
	_, out, _ = h.run(t, "doctor")
	if !strings.Contains(out, "FIX watchdog hosts release Cursor --server remote") && !strings.Contains(out, "watchdog hosts release Cursor --server remote") {
		t.Fatalf("doctor:\n%s", out)
	}
}

// Measured: after the documented secret change (remove proxy-secret and
// restart the daemon) the host got 404 while hosts and doctor said
// proxied, and adopt again kept the old secret. Now hosts says stale and
// doctor gives adopt, which writes the current secret, and the host's
// calls work again.
func TestSecretChangeSaidAndMended(t *testing.T) {
	t.Parallel()
	mem := startMem(t)
	h := newCursorHome(t, map[string]string{"mem": mem.URL()})
	p := h.daemon(t)
	if code, out, errOut := h.run(t, "hosts", "adopt", "Cursor"); code != 0 {
		t.Fatalf("adopt exit %d:\n%s%s", code, out, errOut)
	}
	call(t, h.url(t, "mem"))
	p.Stop(t)
	if err := os.Remove(filepath.Join(h.state, "proxy-secret")); err != nil {
		t.Fatal(err)
	}
	p = h.daemon(t)
	defer p.Stop(t)
	doc, raw := listHosts(t, h.env)
	if p, fix := doc.protection("Cursor", "mem"); p != "stale" || fix != "watchdog hosts adopt Cursor --server mem" {
		t.Fatalf("after the secret changed, hosts says %q, fix %q:\n%s", p, fix, raw)
	}
	if _, out, _ := h.run(t, "doctor"); !strings.Contains(out, "watchdog hosts adopt Cursor --server mem") {
		t.Fatalf("doctor:\n%s", out)
	}
	if code, out, errOut := h.run(t, "hosts", "adopt", "Cursor"); code != 0 || !strings.Contains(out, "repaired: it held an old secret") {
		t.Fatalf("adopt again exit %d:\n%s%s", code, out, errOut)
	}
	if doc, raw := listHosts(t, h.env); !strings.Contains(raw, `"proxied"`) {
		t.Fatalf("after adopt, hosts:\n%s", raw)
	} else if p, _ := doc.protection("Cursor", "mem"); p != "proxied" {
		t.Fatalf("mem is %q", p)
	}
	call(t, h.url(t, "mem"))
}

// startMem is a real server (the Go SDK's) for the host's mem.
func startMem(t *testing.T) *demoserver.Server {
	t.Helper()
	mem, err := demoserver.Start(t.Context(), demoserver.Options{Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = mem.Close() })
	return mem
}

// call makes one tool call at url as a host would (the Go SDK's client).
func call(t *testing.T, url string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
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

// Measured: with the daemon running on a non-default --config, adopt
// wrote the default config and said the running watchdog would pick it
// up. Now adopt writes the config the running daemon runs with, and
// refuses (exit 2, naming it) a --config that is another.
func TestAdoptWritesTheRunningDaemonsConfig(t *testing.T) {
	t.Parallel()
	mem := startMem(t)
	h := newCursorHome(t, map[string]string{"mem": mem.URL()})
	p := h.daemon(t)
	defer p.Stop(t)
	other := filepath.Join(h.home, "other.toml")
	code, _, errOut := runWatchdogEnv(t, append(h.env, "WATCHDOG_CONFIG="+other), "hosts", "adopt", "Cursor")
	if code != exitUsage || !strings.Contains(errOut, "runs with the config "+h.cfg) {
		t.Fatalf("adopt with another config: exit %d: %s", code, errOut)
	}
	if _, err := os.Stat(other); !os.IsNotExist(err) {
		t.Fatalf("the other config was written: %v", err)
	}
	// No config named: the running daemon's is the one written.
	if code, out, errOut := runWatchdogEnv(t, append(h.env, "WATCHDOG_CONFIG="), "hosts", "adopt", "Cursor"); code != 0 {
		t.Fatalf("adopt exit %d:\n%s%s", code, out, errOut)
	}
	if b, _ := os.ReadFile(h.cfg); !strings.Contains(string(b), "proxy_listen") {
		t.Fatalf("the running daemon's config has no proxy:\n%s", b)
	}
	call(t, h.url(t, "mem"))
}

// Measured: with the daemon down, adopt neither warned nor enabled start
// at login. Now adopt installs the supervisor (here, with no systemd user
// manager, the XDG entry, which restarts nothing: adopt says so plainly,
// and that the hosts depend on a running watchdog); --no-autostart leaves
// start at login alone and says the same. Both with --no-start: without
// it, adopt starts a watchdog (TestAdoptStartsAWatchdog).
func TestAdoptEnablesStartAtLogin(t *testing.T) {
	t.Parallel()
	mem := startMem(t)
	for _, no := range []bool{false, true} {
		h := newCursorHome(t, map[string]string{"mem": mem.URL()})
		xdg := filepath.Join(h.home, ".config")
		env := append(h.env, "XDG_CONFIG_HOME="+xdg)
		args := []string{"hosts", "adopt", "Cursor", "--no-start"}
		if no {
			args = append(args, "--no-autostart")
		}
		code, out, errOut := runWatchdogEnv(t, env, args...)
		if code != 0 || !strings.Contains(out, "no watchdog serves them now") {
			t.Fatalf("adopt (--no-autostart %v) exit %d:\n%s%s", no, code, out, errOut)
		}
		_, err := os.Stat(filepath.Join(xdg, "autostart", "mcp-watchdog.desktop"))
		if no != os.IsNotExist(err) {
			t.Errorf("--no-autostart %v: the autostart entry: %v", no, err)
		}
		if !no && !strings.Contains(out, "supervisor: ") || !no && !strings.Contains(out, "depend on a running") {
			t.Errorf("adopt did not say what starts the daemon and what the hosts depend on:\n%s", out)
		}
	}
}
