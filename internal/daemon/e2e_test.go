package daemon_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwatchdog/watchdog/internal/demoserver"
	"github.com/mcpwatchdog/watchdog/internal/testbed/daemontest"
)

// e2eSetup is a real Go SDK server with a short idle timeout, mirroring its
// sessions into a store file and writing a server log, plus a watchdog
// config pointing at it.
type e2eSetup struct {
	srv                                   *demoserver.Server
	dir, stateDir, store, srvLog, hostLog string
	config                                string
}

func newE2E(t *testing.T, idle time.Duration) *e2eSetup {
	t.Helper()
	dir := t.TempDir()
	e := &e2eSetup{dir: dir, stateDir: filepath.Join(dir, "state"), store: filepath.Join(dir, "mem", "mcp-sessions.json"),
		srvLog: filepath.Join(dir, "mem", "server.log"), hostLog: filepath.Join(dir, "dsh", "dsh.log")}
	for _, d := range []string{filepath.Dir(e.store), filepath.Dir(e.hostLog)} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	srv, err := demoserver.Start(context.Background(), demoserver.Options{IdleTimeout: idle, StorePath: e.store, LogPath: e.srvLog})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	e.srv = srv
	e.config = daemontest.WriteConfig(t, dir, fmt.Sprintf(`
[host]
name = "DSH"
client_name = %q
logs = [%q]
process = ""
port = 0

[[server]]
name = "mem"
url = %q
logs = [%q]
idle_timeout = "1h"
keep_warm = false
`, daemontest.HostClient(), e.hostLog, srv.URL(), e.srvLog))
	return e
}

// TestEndToEndExpiryAndLoss runs the daemon against a real MCP
// server whose sessions time out after 2 s. The store path is not
// configured: the watchdog learns it, and the real timeout, from the
// server's announcement in its log.
func TestEndToEndExpiryAndLoss(t *testing.T) {
	e := newE2E(t, 2*time.Second)
	d := startDaemon(t, e.config, e.stateDir)
	ctx := context.Background()

	announced := daemontest.WaitEvent(t, e.stateDir, "server_mode", 1, 10*time.Second)
	if announced["idle_timeout_seconds"] != float64(2) {
		t.Fatalf("announcement not learned: %v", announced)
	}
	cs, err := demoserver.Connect(ctx, e.srv.URL(), daemontest.HostClient())
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	newEv := daemontest.WaitEvent(t, e.stateDir, "session_new", 1, 10*time.Second)
	if newEv["client"] != daemontest.HostClient() || strings.Contains(fmt.Sprint(newEv), cs.ID()) {
		t.Fatalf("session_new %v: wrong client or full id", newEv)
	}

	// The session idles past 2 s; the server ends it and rewrites its store.
	e.expiredOnTime(t, daemontest.WaitEvent(t, e.stateDir, "session_expired", 1, 15*time.Second), cs.ID())
	// It was the host's current session and the host runs: the next call fails.
	daemontest.WaitEvent(t, e.stateDir, "session_lost", 1, 5*time.Second)
	if state, _ := daemontest.ServerState(status(t, e.stateDir), "mem"); state != "lost" {
		t.Fatalf("status state %q, want lost", state)
	}
	if _, err := cs.CallTool(ctx, toolCall("echo")); err == nil {
		t.Fatal("a call on the expired session succeeded; the server did not expire it")
	}

	// The host reconnects: a new session of its client heals the incident.
	cs2, err := demoserver.Connect(ctx, e.srv.URL(), daemontest.HostClient())
	if err != nil {
		t.Fatal(err)
	}
	defer cs2.Close()
	rec := daemontest.WaitEvent(t, e.stateDir, "recovered", 1, 10*time.Second)
	if _, ok := rec["took_ms"].(float64); !ok {
		t.Fatalf("recovered without took_ms: %v", rec)
	}
	state, sessions := daemontest.ServerState(status(t, e.stateDir), "mem")
	if state != "healthy" && state != "at_risk" || len(sessions) != 1 {
		t.Fatalf("after recovery: state %q sessions %v", state, sessions)
	}

	e.lostByHostLog(t)
	d.stop(t)
	assertNoFullIDs(t, e.stateDir, d.log.String(), cs.ID(), cs2.ID())
}

// expiredOnTime: the expiry of session id is journaled within 500 ms of
// the store change that shows it, and names the session masked. The
// server's own log line ("session closed ... reason=idle_timeout") may
// tell it first; only then may the expiry come before the store change.
func (e *e2eSetup) expiredOnTime(t *testing.T, expired daemontest.JournalLine, id string) {
	t.Helper()
	daemontest.WaitFor(t, 5*time.Second, "the store to drop the session", func() bool {
		b, err := os.ReadFile(e.store)
		return err == nil && !strings.Contains(string(b), id)
	})
	st, err := os.Stat(e.store)
	if err != nil {
		t.Fatal(err)
	}
	early := -50 * time.Millisecond
	if strings.Contains(expired.Str("detail"), "(its log)") {
		early = -time.Minute
	}
	if lag := expired.Time(t).Sub(st.ModTime()); lag > 500*time.Millisecond || lag < early {
		t.Fatalf("session_expired %s after the store change, want within 500 ms (%s)", lag, expired.Str("detail"))
	}
	if expired.Str("session") != daemontest.MaskedID(id) {
		t.Fatalf("expired session %q, want %q", expired.Str("session"), daemontest.MaskedID(id))
	}
}

// lostByHostLog: the host's log says a POST met a dead session; that line
// is the second loss, and the status says lost.
func (e *e2eSetup) lostByHostLog(t *testing.T) {
	t.Helper()
	daemontest.AppendLine(t, e.hostLog, time.Now().UTC().Format(time.RFC3339Nano)+
		" ERROR [mcp mem] Streamable HTTP error: Error POSTing to endpoint: Not Found: Session not found")
	lost := daemontest.WaitEvent(t, e.stateDir, "session_lost", 2, 5*time.Second)
	if lost.Str("log_file") != e.hostLog {
		t.Fatalf("session_lost not from the host log: %v", lost)
	}
	if state, _ := daemontest.ServerState(status(t, e.stateDir), "mem"); state != "lost" {
		t.Fatalf("status state %q after the log line, want lost", state)
	}
}

// assertNoFullIDs greps every output for the whole session ids.
func assertNoFullIDs(t *testing.T, stateDir, daemonLog string, ids ...string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(stateDir, "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		if strings.Contains(string(b), id) || strings.Contains(daemonLog, id) {
			t.Fatalf("a full session id leaked into the journal or the daemon's log")
		}
	}
}

func toolCall(name string) *mcp.CallToolParams {
	return &mcp.CallToolParams{Name: name, Arguments: map[string]any{"text": "hello"}}
}
