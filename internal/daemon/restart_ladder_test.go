package daemon_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/testbed/daemontest"
)

// ladderSetup: a stand-in host the watchdog watches by command line, a
// store the test writes, and the host's log.
func ladderSetup(t *testing.T, restart []string) (cfg, state, store, hostLog, token string) {
	t.Helper()
	dir := t.TempDir()
	token = standInToken(t)
	store = filepath.Join(dir, "mcp-sessions.json")
	hostLog = filepath.Join(dir, "dsh.log")
	writeSessions(t, store, "host-session-00000001")
	// EXE: this test binary under the token's name, so the restarted host
	// runs as token as the first one does.
	exe := filepath.Join(dir, token)
	if err := os.Symlink(os.Args[0], exe); err != nil {
		t.Fatal(err)
	}
	argv := make([]string, len(restart))
	for i, a := range restart {
		argv[i] = fmt.Sprintf("%q", strings.ReplaceAll(strings.ReplaceAll(a, "TOKEN", token), "EXE", exe))
	}
	cfg = daemontest.WriteConfig(t, dir, fmt.Sprintf(`
[host]
client_name = %q
process = %q
logs = [%q]
restart = [%s]
auto_restart = true
[[server]]
name = "mem"
url = "http://127.0.0.1:9/mcp"
store = %q
keep_warm = false
`, daemontest.HostClient(), token, hostLog, strings.Join(argv, ", "), store))
	return cfg, filepath.Join(dir, "state"), store, hostLog, token
}

func writeSessions(t *testing.T, store string, ids ...string) {
	t.Helper()
	var rows []string
	now := time.Now().UTC().Format(time.RFC3339Nano)
	for _, id := range ids {
		rows = append(rows, fmt.Sprintf(`{"id":%q,"client_name":%q,"created_at":%q,"last_activity":%q}`, id, daemontest.HostClient(), now, now))
	}
	tmp := store + ".tmp"
	if err := os.WriteFile(tmp, []byte(`{"sessions":[`+strings.Join(rows, ",")+`]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, store); err != nil {
		t.Fatal(err)
	}
}

const postLost = "ERROR [mcp mem] Streamable HTTP error: Error POSTing to endpoint: Session not found"

// TestAutoRestartHealsALostSession: the unpatched host's session is lost;
// auto_restart stops the stand-in host (SIGTERM), starts it again from the
// restart argv, and the new session of its client is the recovery.
func TestAutoRestartHealsALostSession(t *testing.T) {
	t.Parallel()
	cfg, state, store, hostLog, token := ladderSetup(t, []string{"EXE", "TOKEN"})
	host := startStandInHost(t, token)
	startDaemon(t, cfg, state)
	daemontest.WaitEvent(t, state, "host_up", 1, 20*time.Second)
	writeSessions(t, store, "host-session-00000002") // the host's current session
	daemontest.WaitEvent(t, state, "session_new", 1, 10*time.Second)

	daemontest.AppendLine(t, hostLog, postLost)
	started := daemontest.WaitEvent(t, state, "heal_started", 1, 10*time.Second)
	if started.Str("strategy") != "host_restart" {
		t.Fatalf("heal_started %v, want host_restart", started)
	}
	if _, err := host.Process.Wait(); err != nil {
		t.Fatalf("the old host was not stopped: %v", err)
	}
	// The process watcher sees a new pid where the old one was.
	restarted := daemontest.WaitEvent(t, state, "host_restarted", 1, 30*time.Second)
	newPID := int(restarted["pid"].(float64))
	t.Cleanup(func() { _ = syscall.Kill(newPID, syscall.SIGKILL) })
	if newPID == host.Process.Pid {
		t.Fatal("the host was not restarted: same pid")
	}
	writeSessions(t, store, "host-session-00000003") // the restarted host reconnects
	rec := daemontest.WaitEvent(t, state, "recovered", 1, 10*time.Second)
	if rec.Str("strategy") != "host_restart" {
		t.Fatalf("recovered %v, want strategy host_restart", rec)
	}
	b, _ := os.ReadFile(filepath.Join(state, "host.log"))
	if !strings.Contains(string(b), "watchdog: starting") {
		t.Fatalf("the restarted host's output does not go to STATE_DIR/host.log: %q", b)
	}
}

// TestRestartCommandThatDoesNotExist: a clear heal_failed, and the running
// host is left alone.
func TestRestartCommandThatDoesNotExist(t *testing.T) {
	t.Parallel()
	cfg, state, store, hostLog, token := ladderSetup(t, []string{"/nonexistent/dsh-binary", "web"})
	host := startStandInHost(t, token)
	startDaemon(t, cfg, state)
	daemontest.WaitEvent(t, state, "host_up", 1, 20*time.Second)
	writeSessions(t, store, "host-session-00000002")
	daemontest.WaitEvent(t, state, "session_new", 1, 10*time.Second)
	daemontest.AppendLine(t, hostLog, postLost)
	failed := daemontest.WaitEvent(t, state, "heal_failed", 1, 10*time.Second)
	if d := failed.Str("detail"); !strings.Contains(d, "dsh-binary") || !strings.Contains(d, "host.restart") {
		t.Fatalf("heal_failed does not say what to fix: %q", d)
	}
	if err := host.Process.Signal(syscall.Signal(0)); err != nil {
		t.Fatalf("the host was stopped although it could not be started again: %v", err)
	}
}
