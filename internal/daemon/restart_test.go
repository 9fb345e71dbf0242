package daemon_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/testbed/daemontest"
)

// TestKillNineMidIncident: a daemon killed with SIGKILL during an incident
// comes back knowing the incident (its recovery is still reported, once,
// with the whole duration) and raises no second alert for lines it had
// already handled.
func TestKillNineMidIncident(t *testing.T) {
	dir := t.TempDir()
	hostLog := filepath.Join(dir, "dsh.log")
	store := filepath.Join(dir, "mcp-sessions.json")
	body := fmt.Sprintf(`{"sessions":[{"id":"0f8e4a1c-7b2d-4e6f-9a3b-5c1d2e3f4a5b","client_name":%q,"last_activity":%q}]}`,
		daemontest.HostClient(), time.Now().UTC().Format(time.RFC3339Nano))
	if err := os.WriteFile(store, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	daemontest.AppendLine(t, hostLog, "INFO dsh web listening on :3080")
	cfg := daemontest.WriteConfig(t, dir, fmt.Sprintf(`
[host]
logs = [%q]
process = ""
port = 0
[[server]]
name = "mem"
url = "http://127.0.0.1:14242/mcp"
store = %q
`, hostLog, store))
	state := filepath.Join(dir, "state")
	lossLine := "ERROR [mcp mem] Streamable HTTP error: Error POSTing to endpoint: Session not found"

	d := startDaemonProc(t, cfg, state)
	daemontest.AppendLine(t, hostLog, lossLine)
	first := daemontest.WaitEvent(t, state, "session_lost", 1, 5*time.Second)
	for i := range 50 {
		daemontest.AppendLine(t, hostLog, fmt.Sprintf("INFO request %d", i))
		daemontest.AppendLine(t, hostLog, lossLine) // the same incident: no new alert
	}
	time.Sleep(300 * time.Millisecond)
	d.Kill()

	d = startDaemonProc(t, cfg, state)
	daemontest.AppendLine(t, hostLog, "INFO [mcp mem] Reconnected to MCP server")
	rec := daemontest.WaitEvent(t, state, "recovered", 1, 5*time.Second)
	took, _ := rec["took_ms"].(float64)
	if want := rec.Time(t).Sub(first.Time(t)).Milliseconds(); int64(took) != want {
		t.Fatalf("recovered took_ms %v, want the whole incident %d", took, want)
	}
	if n := len(daemontest.Journal(t, state, "session_lost")); n != 1 {
		t.Fatalf("%d session_lost events after the restart, want 1", n)
	}
	d.Kill()

	d = startDaemonProc(t, cfg, state)
	daemontest.AppendLine(t, hostLog, lossLine)
	daemontest.WaitEvent(t, state, "session_lost", 2, 5*time.Second)
	d.Stop(t)
	if n := len(daemontest.Journal(t, state, "recovered")); n != 1 {
		b, _ := os.ReadFile(filepath.Join(state, "events.jsonl"))
		t.Logf("journal:\n%s", b)
		t.Fatalf("%d recovered events, want 1", n)
	}
}
