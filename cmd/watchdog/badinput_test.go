package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwatchdog/watchdog/internal/testbed/daemontest"
)

func TestBadConfigExitsTwoNamingFileLineAndKey(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body string
		want       []string
	}{
		{"malformed TOML", "[host]\nname = \"DSH\nport = 3080\n", []string{"config.toml:2"}},
		{"unknown key", "[host]\nname = \"DSH\"\nprocces = \"dsh\"\n", []string{"config.toml:3", "procces"}},
		{"bad duration", "[[server]]\nname = \"mem\"\nurl = \"http://127.0.0.1:1/mcp\"\nidle_timeout = \"soon\"\n", []string{"config.toml:4", "idle_timeout"}},
		{"non-loopback metrics", "metrics_listen = \"0.0.0.0:9464\"\n", []string{"config.toml:1", "metrics_listen"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			p := filepath.Join(dir, "config.toml")
			if err := os.WriteFile(p, []byte(tt.body), 0o600); err != nil {
				t.Fatal(err)
			}
			for _, args := range [][]string{{"run", "--headless"}, {"status"}} {
				code, _, stderr := runWatchdog(t, append(args, "--config", p, "--state-dir", filepath.Join(dir, "state"))...)
				if code != exitUsage {
					t.Fatalf("%v: exit %d, want 2; stderr: %s", args, code, stderr)
				}
				for _, w := range tt.want {
					if !strings.Contains(stderr, w) {
						t.Errorf("%v: stderr %q does not name %q", args, stderr, w)
					}
				}
			}
			if _, err := os.Stat(filepath.Join(dir, "state", "events.jsonl")); err == nil {
				t.Error("a bad config still started a daemon")
			}
		})
	}
}

func TestUsageAndNoDaemon(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := daemontest.WriteConfig(t, dir, "[host]\nname = \"DSH\"\n")
	state := filepath.Join(dir, "state")
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"frobnicate"}, exitUsage, "unknown command"},
		{[]string{"scan"}, exitUsage, "at least one log FILE"},
		{[]string{"status", "--config", cfg, "--state-dir", state}, exitNoDaemon, "watchdog run"},
		{[]string{"heal", "--config", cfg, "--state-dir", state}, exitNoDaemon, "watchdog run"},
		{[]string{"version"}, exitOK, ""},
		{[]string{"--help"}, exitOK, "\n  proxy "},
		{[]string{"proxy", "--help"}, exitOK, "Usage of watchdog proxy"},
		{[]string{"run", "--help"}, exitOK, "-proxy-process"},
	}
	for _, tt := range tests {
		code, out, stderr := runWatchdog(t, tt.args...)
		if code != tt.code || !strings.Contains(out+stderr, tt.want) {
			t.Errorf("%v: exit %d, output %q; want exit %d mentioning %q", tt.args, code, out+stderr, tt.code, tt.want)
		}
		if tt.args[0] == "proxy" && strings.Contains(stderr, "headless") {
			t.Errorf("watchdog proxy --help prints run's flags: %q", stderr)
		}
	}
}

func TestSecondRunExitsOneNamingThePID(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := daemontest.WriteConfig(t, dir, "[host]\nprocess = \"\"\nport = 0\n[[server]]\nname = \"mem\"\nurl = \"http://127.0.0.1:9/mcp\"\n")
	state := filepath.Join(dir, "state")
	d := startDaemon(t, cfg, state)
	code, _, stderr := runWatchdog(t, "run", "--headless", "--config", cfg, "--state-dir", state)
	if code != exitFailed || !strings.Contains(stderr, fmt.Sprintf("pid %d", d.Cmd.Process.Pid)) {
		t.Fatalf("second run: exit %d, stderr %q; want 1 naming pid %d", code, stderr, d.Cmd.Process.Pid)
	}
}

// Issue 60: a refusal of adopt names the file, the line where there is
// one, what is wrong and what to do. Measured before: a server named twice
// in Cursor's file said "named twice in its file (lines 3 and 4)" without
// the file; a directory where Cursor's file should be said only "no such
// server to adopt".
func TestHostsAdoptRefusalNamesTheFile(t *testing.T) {
	t.Parallel()
	twice := "{\n  \"mcpServers\": {\n    \"mem\": {\"url\": \"http://127.0.0.1:9/mcp\"},\n    \"mem\": {\"url\": \"http://127.0.0.1:8/mcp\"}\n  }\n}\n"
	tests := []struct {
		name, body string // body "": a directory where the file should be
		says       []string
	}{
		{"named twice", twice, []string{"mcp.json line 3", "named twice", "lines 3 and 4", "remove or rename one entry"}},
		{"a directory", "", []string{"is not a regular file (it is a directory)", "move it out of the way", "adopt again"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			home := t.TempDir()
			file := filepath.Join(home, ".cursor", "mcp.json")
			if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
				t.Fatal(err)
			}
			if tt.body == "" {
				if err := os.Mkdir(file, 0o700); err != nil {
					t.Fatal(err)
				}
			} else if err := os.WriteFile(file, []byte(tt.body), 0o600); err != nil {
				t.Fatal(err)
			}
			env := []string{"HOME=" + home, "WATCHDOG_STATE_DIR=" + filepath.Join(home, "state"), "XDG_CONFIG_HOME=" + filepath.Join(home, ".config")}
			for _, args := range [][]string{{"hosts", "adopt", "Cursor", "--no-autostart"}, {"hosts", "adopt", "Cursor", "--server", "mem", "--no-autostart"}} {
				code, out, errOut := runWatchdogEnv(t, env, args...)
				if code != exitUsage {
					t.Fatalf("%v: exit %d, want %d:\n%s%s", args, code, exitUsage, out, errOut)
				}
				for _, w := range append([]string{file}, tt.says...) {
					if !strings.Contains(errOut, w) {
						t.Errorf("%v: %q\ndoes not say %q", args, errOut, w)
					}
				}
			}
			if got, err := os.ReadFile(file); err == nil && string(got) != tt.body {
				t.Errorf("the file was written: %s", got)
			}
		})
	}
}
