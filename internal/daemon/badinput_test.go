package daemon_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/testbed/daemontest"
	"github.com/mcpwatchdog/watchdog/monitor/store"
)

// badInputs is a config whose host logs sit in a directory that is a file
// and in one that cannot be read, with a server log and a store the test
// spoils; good is the store's valid content.
type badInputs struct {
	cfg, state, store, binLog, good string
	lastActivity                    string // the good store's, as written
}

func newBadInputs(t *testing.T) badInputs {
	t.Helper()
	dir := t.TempDir()
	locked := filepath.Join(dir, "locked")
	if err := os.WriteFile(locked, []byte("not a directory"), 0o600); err != nil {
		t.Fatal(err)
	}
	noRead := filepath.Join(dir, "noread")
	if err := os.Mkdir(noRead, 0o000); err != nil {
		t.Fatal(err)
	}
	b := badInputs{state: filepath.Join(dir, "state"), store: filepath.Join(dir, "store", "mcp-sessions.json"),
		binLog: filepath.Join(dir, "bin.log")}
	os.MkdirAll(filepath.Dir(b.store), 0o700)
	// Ten minutes idle of the hour: a later write can show it was read
	// by a drop in idle time.
	b.lastActivity = time.Now().Add(-10 * time.Minute).UTC().Format(time.RFC3339Nano)
	b.good = fmt.Sprintf(`{"sessions":[{"id":"0f8e4a1c-7b2d-4e6f-9a3b-5c1d2e3f4a5b","client_name":%q,"last_activity":%q}]}`,
		daemontest.HostClient(), b.lastActivity)
	if err := os.WriteFile(b.store, []byte(b.good), 0o600); err != nil {
		t.Fatal(err)
	}
	b.cfg = daemontest.WriteConfig(t, dir, fmt.Sprintf(`
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
`, filepath.Join(locked, "*.log"), filepath.Join(noRead, "*.log"), b.binLog, b.store))
	return b
}

// waitWarning waits for a warning whose detail holds one of words.
func waitWarning(t *testing.T, state, what string, words ...string) {
	t.Helper()
	daemontest.WaitFor(t, 10*time.Second, what, func() bool {
		for _, ev := range daemontest.Journal(t, state, "warning") {
			for _, w := range words {
				if strings.Contains(ev.Str("detail"), w) {
					return true
				}
			}
		}
		return false
	})
}

// TestBadInputsKeepTheDaemonRunning: an unreadable log directory, a store
// that is not JSON and a binary log give warnings or nothing, never a crash,
// a false expiry or a false loss.
func TestBadInputsKeepTheDaemonRunning(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Log("running as root, whom permissions do not stop: the warning must come from the log glob that runs through a file")
	}
	b := newBadInputs(t)
	startDaemon(t, b.cfg, b.state)
	waitWarning(t, b.state, "the unreadable log directory's warning", "locked", "noread")

	// A store that is not JSON: a warning, and the session is not expired.
	if err := os.WriteFile(b.store, []byte("<html>oops</html>"), 0o600); err != nil {
		t.Fatal(err)
	}
	waitWarning(t, b.state, "the store warning", "session store")
	// A binary log: junk lines classify as nothing.
	junk := make([]byte, 64<<10)
	for i := range junk {
		junk[i] = byte(i*7919) ^ byte(i>>8)
	}
	if err := os.WriteFile(b.binLog, junk, 0o600); err != nil {
		t.Fatal(err)
	}
	// The store comes back, its session used meanwhile: no expiry, no
	// loss, no new session.
	b.goodBack(t)
	if evs := daemontest.Journal(t, b.state, "session_expired", "session_lost", "session_new", "session_ended"); len(evs) != 0 {
		t.Fatalf("bad input caused false alarms: %v", evs)
	}
	// Nothing listens on the server's port: down, but its session is not lost.
	if state, sessions := daemontest.ServerState(status(t, b.state), "mem"); state != "down" || len(sessions) != 1 {
		t.Fatalf("status after bad input: %s %v", state, sessions)
	}
}

// TestOversizeStoreWarnsOnce: issue 15's measurement A. A store over
// store.MaxStoreSize is not read: one warning in the journal for the whole
// episode, however often it changes, and the last good snapshot stays (no
// false expiry, loss or new session when the good store comes back).
func TestOversizeStoreWarnsOnce(t *testing.T) {
	b := newBadInputs(t)
	startDaemon(t, b.cfg, b.state)
	daemontest.WaitFor(t, 10*time.Second, "the store's session in the status", func() bool {
		_, sessions := daemontest.ServerState(status(t, b.state), "mem")
		return len(sessions) == 1
	})
	for i, pad := range []int{store.MaxStoreSize, store.MaxStoreSize + 4096} {
		big := b.good + strings.Repeat(" ", pad) // valid JSON, but over the cap
		if err := os.WriteFile(b.store, []byte(big), 0o600); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			waitWarning(t, b.state, "the oversize store's warning", "over the")
		}
	}
	b.goodBack(t)
	n := 0
	for _, ev := range daemontest.Journal(t, b.state, "warning") {
		if strings.Contains(ev.Str("detail"), "over the") {
			n++
			if !strings.Contains(ev.Str("detail"), fmt.Sprint(store.MaxStoreSize)) {
				t.Errorf("warning does not name the cap: %s", ev.Str("detail"))
			}
		}
	}
	if n != 1 {
		t.Errorf("%d oversize warnings, want 1 for the episode", n)
	}
	if evs := daemontest.Journal(t, b.state, "session_expired", "session_lost", "session_new", "session_ended"); len(evs) != 0 {
		t.Fatalf("the oversize store caused false alarms: %v", evs)
	}
	if _, sessions := daemontest.ServerState(status(t, b.state), "mem"); len(sessions) != 1 {
		t.Fatalf("sessions after the episode: %v, want the one from before", sessions)
	}
}

// goodBack writes the good store again with its session just active and
// waits until the status shows its idle time drop: the barrier. The store
// is read in order, so whatever the writes before it caused is in the
// journal by then.
func (b badInputs) goodBack(t *testing.T) {
	t.Helper()
	back := strings.Replace(b.good, b.lastActivity, time.Now().UTC().Format(time.RFC3339Nano), 1)
	if err := os.WriteFile(b.store, []byte(back), 0o600); err != nil {
		t.Fatal(err)
	}
	daemontest.WaitFor(t, 10*time.Second, "the good store's activity in the status", func() bool {
		_, sessions := daemontest.ServerState(status(t, b.state), "mem")
		return len(sessions) == 1 && idleOf(sessions[0]) < 60
	})
}

// idleOf is a status session's idle_seconds.
func idleOf(session any) float64 {
	m, _ := session.(map[string]any)
	idle, _ := m["idle_seconds"].(float64)
	return idle
}
