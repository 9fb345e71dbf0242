package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"testing"

	"github.com/mcpwatchdog/watchdog/internal/testbed/daemontest"
)

// asBinary makes the test binary act as the watchdog binary, so end-to-end
// tests run the real main, race detector included, as a subprocess.
const asBinary = "WATCHDOG_TEST_AS_BINARY"

func TestMain(m *testing.M) {
	if os.Getenv(asBinary) == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

// watchdogCmd prepares the watchdog as a subprocess.
func watchdogCmd(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	// GORACE: a race-enabled binary otherwise sleeps 1 s at exit.
	cmd.Env = append(os.Environ(), asBinary+"=1", "WATCHDOG_CONFIG=", "WATCHDOG_STATE_DIR=", "XDG_CONFIG_HOME="+t.TempDir(),
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
