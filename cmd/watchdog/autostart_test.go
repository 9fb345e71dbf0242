package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// runAutostart runs `watchdog autostart ARGS` as a subprocess in a temp
// HOME and XDG_CONFIG_HOME.
func runAutostart(t *testing.T, home, cfg string, args ...string) (int, string, string) {
	t.Helper()
	cmd := watchdogCmd(t, append([]string{"autostart"}, args...)...)
	cmd.Env = append(cmd.Env, "HOME="+home, "XDG_CONFIG_HOME="+cfg)
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
		{"xdg", nil, "autostart/mcp-watchdog.desktop", ""},
		{"systemd", []string{"--systemd"}, "systemd/user/mcp-watchdog.service", "systemctl --user enable --now mcp-watchdog.service"},
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
