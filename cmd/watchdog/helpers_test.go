package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"testing"

	"github.com/mcpwatchdog/watchdog/internal/testbed/daemontest"
)

// asBinary makes the test binary act as the watchdog binary, so end-to-end
// tests run the real main, race detector included, as a subprocess.
const asBinary = "WATCHDOG_TEST_AS_BINARY"

func TestMain(m *testing.M) {
	// argv first: a stand-in host restarted by the daemon inherits its env.
	if len(os.Args) > 1 && strings.HasPrefix(os.Args[1], standInPrefix) {
		standInHost()
		return
	}
	if os.Getenv(asBinary) == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

// standInPrefix as the first argument makes the test binary a stand-in
// MCP host process that runs until SIGTERM; the process watcher finds it
// by the rest of that argument.
const standInPrefix = "standin-"

func standInHost() {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, os.Interrupt)
	<-sig
}

// startStandInHost starts a stand-in host whose command line carries token.
func startStandInHost(t *testing.T, token string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], token)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _, _ = cmd.Process.Wait() })
	return cmd
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
