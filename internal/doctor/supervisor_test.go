package doctor

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwatchdog/watchdog/internal/autostart"
	"github.com/mcpwatchdog/watchdog/internal/config"
)

// A config with a proxy: doctor says the proxy has no supervisor while
// nothing, or only the XDG entry, starts the daemon; that the socket unit
// misses a proxy's socket; and that all is well once the systemd units
// restart the daemon and hold every socket.
// Long: one install after another, each with the finding it gets.
func TestSupervisorFinding(t *testing.T) {
	t.Parallel()
	home, cfgHome := t.TempDir(), t.TempDir()
	exe := filepath.Join(t.TempDir(), "watchdog")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	getenv := func(k string) string { return map[string]string{"XDG_CONFIG_HOME": cfgHome}[k] }
	sup := autostart.Options{Home: home, Exe: exe, GOOS: "linux", Getenv: getenv}
	cfg := config.Config{Servers: []config.Server{{Name: "mem", URL: "http://127.0.0.1:1/mcp", ProxyListen: "127.0.0.1:14390"}}}
	control := filepath.Join(t.TempDir(), "watchdog.sock")
	finding := func() Finding {
		t.Helper()
		rep := &Report{}
		checkSupervisor(context.Background(), rep, Options{Config: cfg, Supervisor: sup, Control: control})
		if len(rep.Findings) != 1 {
			t.Fatalf("findings %+v, want one", rep.Findings)
		}
		return rep.Findings[0]
	}
	if f := finding(); !f.Problem || !strings.Contains(f.Detail, "the proxies have no supervisor") {
		t.Errorf("nothing installed: %+v", f)
	}
	if _, err := autostart.Enable(autostart.ForConfig(sup, cfg, control)); err != nil { // XDG: no user manager here
		t.Fatal(err)
	}
	if f := finding(); !f.Problem || !strings.Contains(f.Detail, "nothing restarts it") {
		t.Errorf("the XDG entry only: %+v", f)
	}
	units := sup
	units.Kind = autostart.Systemd
	old := cfg
	old.Servers = nil
	if _, err := autostart.Enable(autostart.ForConfig(units, old, control)); err != nil { // holds the control socket only
		t.Fatal(err)
	}
	sup.Kind = autostart.Systemd
	if f := finding(); !f.Problem || !strings.Contains(f.Detail, "does not hold the sockets of 127.0.0.1:14390") {
		t.Errorf("a socket unit without the proxy: %+v", f)
	}
	if _, err := autostart.Enable(autostart.ForConfig(units, cfg, control)); err != nil {
		t.Fatal(err)
	}
	if f := finding(); !f.Problem || f.Fix != autostart.SystemdEnableCommand {
		t.Errorf("units written, not enabled: %+v", f)
	}
	wants := filepath.Join(cfgHome, "systemd", "user", "default.target.wants")
	if err := os.MkdirAll(wants, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(cfgHome, "systemd", "user", autostart.UnitName), filepath.Join(wants, autostart.UnitName)); err != nil {
		t.Fatal(err)
	}
	if f := finding(); !f.OK || !strings.Contains(f.Detail, "restarts it after every exit") || !strings.Contains(f.Detail, "127.0.0.1:14390") {
		t.Errorf("supervised: %+v", f)
	}
	cfg.Servers[0].ProxyListen = ""
	rep := &Report{}
	checkSupervisor(context.Background(), rep, Options{Config: cfg, Supervisor: sup, Control: control})
	if len(rep.Findings) != 0 {
		t.Errorf("a config without proxies got %+v", rep.Findings)
	}
}
