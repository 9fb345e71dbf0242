package daemon_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/testbed/daemontest"
)

// TestBadInputsKeepTheDaemonRunning: an unreadable log directory, a store
// that is not JSON and a binary log give warnings or nothing, never a crash,
// a false expiry or a false loss.
func TestBadInputsKeepTheDaemonRunning(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Log("running as root, whom permissions do not stop: the warning must come from the log glob that runs through a file")
	}
	dir := t.TempDir()
	locked := filepath.Join(dir, "locked")
	if err := os.WriteFile(locked, []byte("not a directory"), 0o600); err != nil {
		t.Fatal(err)
	}
	noRead := filepath.Join(dir, "noread")
	if err := os.Mkdir(noRead, 0o000); err != nil {
		t.Fatal(err)
	}
	store := filepath.Join(dir, "store", "mcp-sessions.json")
	binLog := filepath.Join(dir, "bin.log")
	os.MkdirAll(filepath.Dir(store), 0o700)
	good := fmt.Sprintf(`{"sessions":[{"id":"0f8e4a1c-7b2d-4e6f-9a3b-5c1d2e3f4a5b","client_name":%q,"last_activity":%q}]}`,
		daemontest.HostClient, time.Now().UTC().Format(time.RFC3339Nano))
	if err := os.WriteFile(store, []byte(good), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := daemontest.WriteConfig(t, dir, fmt.Sprintf(`
[host]
logs = [%q, %q]
process = ""
port = 0
[[server]]
name = "mem"
url = "http://127.0.0.1:9/mcp"
logs = [%q]
store = %q
idle_timeout = "1h"
`, filepath.Join(locked, "*.log"), filepath.Join(noRead, "*.log"), binLog, store))
	state := filepath.Join(dir, "state")
	startDaemon(t, cfg, state)
	daemontest.WaitFor(t, 10*time.Second, "the unreadable log directory's warning", func() bool {
		for _, ev := range daemontest.Journal(t, state, "warning") {
			if strings.Contains(ev.Str("detail"), "locked") || strings.Contains(ev.Str("detail"), "noread") {
				return true
			}
		}
		return false
	})

	// A store that is not JSON: a warning, and the session is not expired.
	if err := os.WriteFile(store, []byte("<html>oops</html>"), 0o600); err != nil {
		t.Fatal(err)
	}
	daemontest.WaitFor(t, 10*time.Second, "the store warning", func() bool {
		for _, ev := range daemontest.Journal(t, state, "warning") {
			if strings.Contains(ev.Str("detail"), "session store") {
				return true
			}
		}
		return false
	})
	// A binary log: junk lines classify as nothing.
	junk := make([]byte, 64<<10)
	for i := range junk {
		junk[i] = byte(i*7919) ^ byte(i>>8)
	}
	if err := os.WriteFile(binLog, junk, 0o600); err != nil {
		t.Fatal(err)
	}
	// The store comes back unchanged: no expiry, no loss, no new session.
	if err := os.WriteFile(store, []byte(good), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	<-ctx.Done()
	if evs := daemontest.Journal(t, state, "session_expired", "session_lost", "session_new", "session_ended"); len(evs) != 0 {
		t.Fatalf("bad input caused false alarms: %v", evs)
	}
	// Nothing listens on the server's port: down, but its session is not lost.
	if state, sessions := daemontest.ServerState(status(t, state), "mem"); state != "down" || len(sessions) != 1 {
		t.Fatalf("status after bad input: %s %v", state, sessions)
	}
}
