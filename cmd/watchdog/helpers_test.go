package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
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

// daemonProc is a running `watchdog run --headless`.
type daemonProc struct {
	cmd      *exec.Cmd
	stderr   *bytes.Buffer
	stateDir string
	done     chan error
}

func startDaemon(t *testing.T, configPath, stateDir string) *daemonProc {
	t.Helper()
	return startDaemonEnv(t, configPath, stateDir)
}

func (d *daemonProc) stop(t *testing.T) {
	if d.cmd.ProcessState != nil {
		return
	}
	_ = d.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-d.done:
	case <-time.After(10 * time.Second):
		_ = d.cmd.Process.Kill()
		<-d.done
		t.Errorf("daemon did not stop on SIGTERM; stderr:\n%s", d.stderr.String())
	}
}

func (d *daemonProc) kill() {
	_ = d.cmd.Process.Kill()
	<-d.done
}

// syncWriter lets the test read a subprocess's stderr while it runs.
type syncWriter struct{ b *bytes.Buffer }

func (w *syncWriter) Write(p []byte) (int, error) { return w.b.Write(p) }

type event map[string]any

func (e event) str(k string) string { s, _ := e[k].(string); return s }

func (e event) time(t *testing.T) time.Time {
	t.Helper()
	ts, err := time.Parse(time.RFC3339Nano, e.str("time"))
	if err != nil {
		t.Fatalf("event time %q: %v", e.str("time"), err)
	}
	return ts
}

// journalEvents returns the journal's events of the given kinds (all when
// none), failing the test on any line that does not parse.
func journalEvents(t *testing.T, stateDir string, kinds ...string) []event {
	t.Helper()
	f, err := os.Open(filepath.Join(stateDir, "events.jsonl"))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var evs []event
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var ev event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("journal line does not parse: %q: %v", sc.Text(), err)
		}
		if len(kinds) == 0 || contains(kinds, ev.str("kind")) {
			evs = append(evs, ev)
		}
	}
	return evs
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitEvent waits for the n-th (1-based) event of a kind and returns it.
func waitEvent(t *testing.T, stateDir, kind string, n int, timeout time.Duration) event {
	t.Helper()
	var got []event
	waitFor(t, timeout, fmt.Sprintf("event #%d of kind %s", n, kind), func() bool {
		got = journalEvents(t, stateDir, kind)
		return len(got) >= n
	})
	return got[n-1]
}

func writeConfig(t *testing.T, dir, body string) string {
	t.Helper()
	p := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(p, []byte(strings.TrimSpace(body)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func appendLine(t *testing.T, path, line string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(line + "\n"); err != nil {
		t.Fatal(err)
	}
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

func serverState(st map[string]any, name string) (state string, sessions []any) {
	servers, _ := st["servers"].([]any)
	for _, s := range servers {
		m, _ := s.(map[string]any)
		if m["name"] == name {
			state, _ = m["state"].(string)
			sessions, _ = m["sessions"].([]any)
			return state, sessions
		}
	}
	return "", nil
}
