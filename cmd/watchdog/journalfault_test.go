//go:build watchdogdebug

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/daemon"
	"github.com/mcpwatchdog/watchdog/internal/testbed/daemontest"
)

// TestJournalFaultFromEnv: `watchdog run` takes the journal fault file
// from its environment, as the chaos soak sets it. While the file exists a
// loss line is not journaled; once it is gone, the loss is, then the
// warning that says the journal could not be written.
func TestJournalFaultFromEnv(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	hostLog, store, fault := filepath.Join(dir, "host.log"), filepath.Join(dir, "store.json"), filepath.Join(dir, "fault")
	body := fmt.Sprintf(`{"sessions":[{"id":"0f8e4a1c-7b2d-4e6f-9a3b-5c1d2e3f4a5b","client_name":%q,"last_activity":%q}]}`,
		daemontest.HostClient(), time.Now().UTC().Format(time.RFC3339Nano))
	if err := os.WriteFile(store, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := daemontest.WriteConfig(t, dir, fmt.Sprintf(`
[host]
logs = [%q]
process = ""
port = 0
[[server]]
name = "mem"
url = "http://127.0.0.1:9/mcp"
store = %q
`, hostLog, store))
	state := filepath.Join(dir, "state")
	d := startDaemonEnv(t, cfg, state, daemon.JournalFaultEnv+"="+fault)
	if err := os.WriteFile(fault, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	daemontest.AppendLine(t, hostLog, "ERROR [mcp mem] Streamable HTTP error: Error POSTing to endpoint: Session not found")
	daemontest.WaitFor(t, 10*time.Second, "the daemon to log the injected fault", func() bool {
		return strings.Contains(d.Stderr(), "injected write fault")
	})
	if evs := daemontest.Journal(t, state, "session_lost"); len(evs) != 0 {
		t.Fatalf("journaled through the fault: %v", evs)
	}
	if err := os.Remove(fault); err != nil {
		t.Fatal(err)
	}
	daemontest.WaitEvent(t, state, "session_lost", 1, 15*time.Second)
	daemontest.WaitFor(t, 5*time.Second, "the journal outage's warning", func() bool {
		for _, ev := range daemontest.Journal(t, state, "warning") {
			if strings.Contains(ev.Str("detail"), "could not be written") {
				return true
			}
		}
		return false
	})
}
