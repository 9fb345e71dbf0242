package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/doctor"
	"github.com/mcpwatchdog/watchdog/internal/instance"
	"github.com/mcpwatchdog/watchdog/internal/testbed/daemontest"
)

// quietConfig watches one server nobody serves, and no host process.
const quietConfig = "[host]\nprocess = \"\"\nport = 0\n[[server]]\nname = \"mem\"\nurl = \"http://127.0.0.1:9/mcp\"\n"

// TestRunRefusesAnUnsafeStateDir: measurement A of issue 15. `watchdog
// run` checks the state directory before the instance lock: another
// user's, or one others can write to, is refused (exit 1, naming it and
// the fix) with nothing created in it; a watchdog.lock planted as a link
// is refused naming it, its target neither written nor chmodded.
func TestRunRefusesAnUnsafeStateDir(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		spoil func(t *testing.T, state string) (check func())
		want  []string
	}{
		{"mode 0777", func(t *testing.T, state string) func() {
			mustDo(t, os.Chmod(state, 0o777))
			return nothingIn(t, state)
		}, []string{"0777", "chmod 700"}},
		{"owned by nobody", func(t *testing.T, state string) func() {
			mustDo(t, os.Chown(state, 65534, 65534))
			return nothingIn(t, state)
		}, []string{"uid 65534", "--state-dir"}},
		{"watchdog.lock a symlink", func(t *testing.T, state string) func() {
			return plantLink(t, filepath.Join(state, instance.LockFile))
		}, []string{instance.LockFile, "symbolic link"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			cfg := daemontest.WriteConfig(t, dir, quietConfig)
			state := filepath.Join(dir, "state")
			mustDo(t, os.Mkdir(state, 0o700))
			check := tt.spoil(t, state)
			code, _, stderr := runWatchdogTimeout(t, 30*time.Second, "run", "--headless", "--config", cfg, "--state-dir", state)
			if code != exitFailed {
				t.Fatalf("exit %d, want 1; stderr %s", code, stderr)
			}
			for _, w := range append(tt.want, state) {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q does not name %q", stderr, w)
				}
			}
			check()
		})
	}
}

// TestFIFOInputsNeverHang: measurement B of issue 15. A config that is a
// FIFO is exit 2 naming it, at once; a store and a log that are FIFOs are
// warnings while the daemon runs, SIGTERM ends it within 2 s, and doctor
// finishes naming both.
func TestFIFOInputsNeverHang(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifoCfg := filepath.Join(dir, "fifo.toml")
	mustDo(t, syscall.Mkfifo(fifoCfg, 0o600))
	for _, args := range [][]string{{"run", "--headless"}, {"doctor"}} {
		began := time.Now()
		code, _, stderr := runWatchdogTimeout(t, 10*time.Second, append(args, "--config", fifoCfg, "--state-dir", filepath.Join(dir, "state"))...)
		if code != exitUsage || !strings.Contains(stderr, fifoCfg) || !strings.Contains(stderr, "FIFO") {
			t.Errorf("%v with a FIFO config: exit %d after %v, stderr %q; want 2 naming the FIFO", args, code, time.Since(began), stderr)
		}
	}

	storePath, logPath := filepath.Join(dir, "mcp-sessions.json"), filepath.Join(dir, "mem.log")
	mustDo(t, syscall.Mkfifo(storePath, 0o600))
	mustDo(t, syscall.Mkfifo(logPath, 0o600))
	cfg := daemontest.WriteConfig(t, dir, quietConfig+fmt.Sprintf("logs = [%q]\nstore = %q\n", logPath, storePath))
	state := filepath.Join(dir, "state")

	code, out, stderr := runWatchdogTimeout(t, 30*time.Second, "doctor", "--json", "--config", cfg, "--state-dir", state)
	var rep doctor.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != exitFailed {
		t.Fatalf("doctor: exit %d, %v: %s %s", code, err, out, stderr)
	}
	for _, check := range []string{"server mem store", "server mem logs"} {
		f := findingOf(rep, check)
		if !f.Problem || !strings.Contains(f.Detail, "FIFO") {
			t.Errorf("doctor's %q: %+v; want a problem naming the FIFO", check, f)
		}
	}

	d := startDaemon(t, cfg, state)
	daemontest.WaitFor(t, 10*time.Second, "warnings naming the store and the log", func() bool {
		var n int
		for _, ev := range daemontest.Journal(t, state, "warning") {
			if strings.Contains(ev.Str("detail"), storePath) || strings.Contains(ev.Str("detail"), logPath) {
				n++
			}
		}
		return n >= 2
	})
	mustDo(t, d.Cmd.Process.Signal(syscall.SIGTERM))
	select {
	case <-d.Exited():
	case <-time.After(2 * time.Second):
		t.Fatalf("`watchdog run` still runs 2 s after SIGTERM; stderr:\n%s", d.Stderr())
	}
}

func findingOf(rep doctor.Report, check string) doctor.Finding {
	for _, f := range rep.Findings {
		if f.Check == check {
			return f
		}
	}
	return doctor.Finding{}
}

// runWatchdogTimeout is runWatchdog that kills the command, failing the
// test, when it runs longer than limit.
func runWatchdogTimeout(t *testing.T, limit time.Duration, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := watchdogCmd(t, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	mustDo(t, cmd.Start())
	timer := time.AfterFunc(limit, func() { _ = cmd.Process.Kill() })
	err := cmd.Wait()
	if !timer.Stop() {
		t.Errorf("watchdog %v ran longer than %v: killed", args, limit)
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), out.String(), errb.String()
	}
	mustDo(t, err)
	return 0, out.String(), errb.String()
}

// plantLink makes path a symbolic link to a 0644 file of its own and
// returns a check that the target kept its content and mode.
func plantLink(t *testing.T, path string) (untouched func()) {
	t.Helper()
	target := filepath.Join(t.TempDir(), "victim")
	mustDo(t, os.WriteFile(target, []byte("precious\n"), 0o644))
	mustDo(t, os.Chmod(target, 0o644))
	mustDo(t, os.Symlink(target, path))
	return func() {
		t.Helper()
		b, _ := os.ReadFile(target)
		fi, _ := os.Stat(target)
		if string(b) != "precious\n" || fi.Mode().Perm() != 0o644 {
			t.Fatalf("the link's target now holds %q, mode %v", b, fi.Mode().Perm())
		}
	}
}

// nothingIn returns a check that dir still holds nothing.
func nothingIn(t *testing.T, dir string) func() {
	return func() {
		t.Helper()
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Fatalf("files made in the refused directory: %v", entries)
		}
	}
}

func mustDo(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
