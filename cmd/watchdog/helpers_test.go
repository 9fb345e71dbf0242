package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/mcpwatchdog/watchdog/internal/testbed/daemontest"
	"github.com/mcpwatchdog/watchdog/internal/testbed/homeguard"
)

// asBinary makes the test binary act as the watchdog binary, so end-to-end
// tests run the real main, race detector included, as a subprocess.
const asBinary = "WATCHDOG_TEST_AS_BINARY"

func TestMain(m *testing.M) {
	if os.Getenv(asBinary) == "1" {
		main()
		return
	}
	os.Exit(homeguard.Main(m))
}

// watchdogCmd prepares the watchdog as a subprocess, with a HOME and XDG
// folders of its own (a test that wants others appends them to Env).
func watchdogCmd(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	home := t.TempDir()
	// GORACE: a race-enabled binary otherwise sleeps 1 s at exit.
	cmd.Env = append(os.Environ(), asBinary+"=1", "WATCHDOG_CONFIG=", "WATCHDOG_STATE_DIR=", "HOME="+home,
		"XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "XDG_STATE_HOME="+filepath.Join(home, ".local/state"),
		"XDG_DATA_HOME="+filepath.Join(home, ".local/share"), "XDG_CACHE_HOME="+filepath.Join(home, ".cache"),
		// No user manager of the machine's: a supervisor the watchdog installs is never started.
		"XDG_RUNTIME_DIR="+filepath.Join(home, ".run"),
		"GORACE=atexit_sleep_ms=0")
	return cmd
}

// runWatchdog runs a short command and returns its exit code and output.
func runWatchdog(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return runWatchdogEnv(t, nil, args...)
}

// startDaemon starts `watchdog run --headless` and waits until it is ready.
func startDaemon(t *testing.T, configPath, stateDir string) *daemontest.Proc {
	t.Helper()
	return startDaemonEnv(t, configPath, stateDir)
}

func statusJSON(t *testing.T, configPath, stateDir string) map[string]any {
	t.Helper()
	code, out, errOut := runWatchdog(t, "status", "--json", "--config", configPath, "--state-dir", stateDir)
	if code != 0 {
		t.Fatalf("status exit %d: %s", code, errOut)
	}
	var st map[string]any
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatalf("status --json: %v: %s", err, out)
	}
	return st
}
