package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwatchdog/watchdog/internal/autostart"
)

// runAutostart runs `watchdog autostart ARGS` as a subprocess in a temp
// HOME and XDG_CONFIG_HOME.
func runAutostart(t *testing.T, home, cfg string, args ...string) (int, string, string) {
	t.Helper()
	cmd := watchdogCmd(t, append([]string{"autostart"}, args...)...)
	// No systemd user manager in the runtime directory: XDG is the default,
	// and no real systemctl reaches the user's own.
	cmd.Env = append(cmd.Env, "HOME="+home, "XDG_CONFIG_HOME="+cfg, "XDG_STATE_HOME="+filepath.Join(home, "state"),
		"XDG_RUNTIME_DIR="+filepath.Join(home, "run"), "DBUS_SESSION_BUS_ADDRESS=")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), out.String(), errb.String()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, out.String(), errb.String()
}

func TestAutostartCommand(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		flags []string
		rel   string // under XDG_CONFIG_HOME
		next  string // printed after enable
	}{
		{"xdg", nil, "autostart/mcp-watchdog.desktop", "nothing restarts the daemon"},
		{"systemd", []string{"--systemd"}, "systemd/user/mcp-watchdog.service", autostart.SystemdEnableCommand},
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	self, _ = filepath.EvalSymlinks(self)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			home, cfg := t.TempDir(), t.TempDir()
			file := filepath.Join(cfg, tc.rel)
			run := func(args ...string) (int, string, string) {
				return runAutostart(t, home, cfg, append(args, tc.flags...)...)
			}
			if code, out, _ := run("status"); code != 0 || !strings.Contains(out, "disabled") {
				t.Fatalf("status before: %d %q", code, out)
			}
			code, out, errs := run("enable")
			if code != 0 || !strings.Contains(out, file) || !strings.Contains(out, tc.next) {
				t.Fatalf("enable: %d %q %q", code, out, errs)
			}
			data, err := os.ReadFile(file)
			if err != nil || !bytes.Contains(data, []byte(self)) {
				t.Fatalf("%s does not start %s: %v\n%s", file, self, err, data)
			}
			code, out, _ = run("status", "--json")
			var st struct {
				Enabled    bool   `json:"enabled"`
				PointsHere bool   `json:"points_here"`
				Path       string `json:"path"`
			}
			if code != 0 || json.Unmarshal([]byte(out), &st) != nil || !st.Enabled || !st.PointsHere || st.Path != file {
				t.Fatalf("status --json: %d %q", code, out)
			}
			if code, out, _ := run("status"); code != 0 || !strings.Contains(out, "starts this binary") {
				t.Fatalf("status: %d %q", code, out)
			}
			if code, out, _ := run("disable"); code != 0 || !strings.Contains(out, "removed") {
				t.Fatalf("disable: %d %q", code, out)
			}
			if _, err := os.Stat(file); !os.IsNotExist(err) {
				t.Fatalf("file left after disable: %v", err)
			}
		})
	}
}

func TestAutostartUsage(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{nil, {"bogus"}, {"enable", "extra"}, {"status", "--nope"}} {
		if code, _, _ := runAutostart(t, t.TempDir(), t.TempDir(), args...); code != exitUsage {
			t.Errorf("autostart %v: exit %d, want %d", args, code, exitUsage)
		}
	}
}

// enable writes a socket unit that holds the control socket and a service
// that starts this config's daemon (its proxies served apart), and the
// proxy process's socket unit holding every proxy_listen of the config
// and its service, each never giving up; where no user manager runs it says the proxies have
// no supervisor yet and how to start them. With only the XDG entry, it and status say the proxies have no
// supervisor.
func TestAutostartHoldsTheProxies(t *testing.T) {
	t.Parallel()
	home, cfgHome := t.TempDir(), t.TempDir()
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	cfg := filepath.Join(dir, "work.toml")
	body := "[[server]]\nname = \"a\"\nurl = \"http://127.0.0.1:1/mcp\"\nproxy_listen = \"127.0.0.1:14377\"\n" +
		"[[server]]\nname = \"b\"\nurl = \"http://127.0.0.1:2/mcp\"\nproxy_listen = \"localhost:14378\"\n"
	if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	flags := []string{"--config", cfg, "--state-dir", state}
	code, out, errs := runAutostart(t, home, cfgHome, append([]string{"enable", "--systemd"}, flags...)...)
	if code != 0 || !strings.Contains(out, autostart.SystemdEnableCommand) || !strings.Contains(out, "the proxies have no supervisor") {
		t.Fatalf("enable --systemd: %d %q %q", code, out, errs)
	}
	units := filepath.Join(cfgHome, "systemd", "user")
	sock, err := os.ReadFile(filepath.Join(units, autostart.SocketUnit))
	if err != nil {
		t.Fatal(err)
	}
	if got := autostart.SocketsOf(autostart.Systemd, sock); strings.Join(got, " ") != filepath.Join(state, "watchdog.sock") {
		t.Errorf("the daemon's socket unit holds %q, want the control socket", got)
	}
	psock, _ := os.ReadFile(filepath.Join(units, autostart.ProxySocketUnit))
	if got := autostart.SocketsOf(autostart.Systemd, psock); strings.Join(got, " ") != "127.0.0.1:14377 127.0.0.1:14378" {
		t.Errorf("the proxy process's socket unit holds %q, want both proxies", got)
	}
	want := []string{filepath.Join(state, "watchdog.sock"), "127.0.0.1:14377", "127.0.0.1:14378"}
	unit, _ := os.ReadFile(filepath.Join(units, autostart.UnitName))
	if !bytes.Contains(unit, []byte(`run --proxy-process supervised "--config" "`+cfg+`" "--state-dir" "`+state+`"`)) || !bytes.Contains(unit, []byte("Restart=always")) {
		t.Errorf("the service does not start this config's daemon for good:\n%s", unit)
	}
	unit, _ = os.ReadFile(filepath.Join(units, autostart.ProxyUnit))
	if !bytes.Contains(unit, []byte(` proxy "--config" "`+cfg+`" "--state-dir" "`+state+`"`)) || !bytes.Contains(unit, []byte("Restart=always")) {
		t.Errorf("the proxy service does not start this config's proxy process for good:\n%s", unit)
	}
	code, out, _ = runAutostart(t, home, cfgHome, append([]string{"status", "--systemd"}, flags...)...)
	if code != 0 || !strings.Contains(out, "holds: "+strings.Join(want, ", ")) || strings.Contains(out, "not current") ||
		!strings.Contains(out, "restarts it after every exit") || !strings.Contains(out, "not linked to the login yet") {
		t.Errorf("status --systemd: %d %q", code, out)
	}
	code, out, _ = runAutostart(t, home, cfgHome, append([]string{"enable"}, flags...)...)
	if code != 0 || !strings.Contains(out, "(xdg)") || !strings.Contains(out, "the proxies have no supervisor") {
		t.Errorf("enable without a user manager: %d %q; want the XDG entry and the warning", code, out)
	}
}
