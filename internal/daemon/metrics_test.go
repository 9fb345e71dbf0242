package daemon_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/testbed/daemontest"
)

// TestMetricsScraped: an expiry seen in the store shows in the metrics the
// daemon serves, with no session id anywhere in the scrape.
func TestMetricsScraped(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	store := filepath.Join(dir, "mcp-sessions.json")
	id := "0f8e4a1c-7b2d-4e6f-9a3b-5c1d2e3f4a5b"
	old := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339Nano)
	if err := os.WriteFile(store, []byte(fmt.Sprintf(`{"sessions":[{"id":%q,"client_name":"other","last_activity":%q}]}`, id, old)), 0o600); err != nil {
		t.Fatal(err)
	}
	addr := daemontest.FreePort(t)
	cfg := daemontest.WriteConfig(t, dir, fmt.Sprintf(`
metrics_listen = %q
[host]
process = ""
port = 0
[[server]]
name = "mem"
url = "http://127.0.0.1:9/mcp"
store = %q
idle_timeout = "1m"
keep_warm = false
`, addr, store))
	state := filepath.Join(dir, "state")
	startDaemon(t, cfg, state)
	if err := os.WriteFile(store, []byte(`{"sessions":[]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	daemontest.WaitEvent(t, state, "session_expired", 1, 10*time.Second)
	body := daemontest.ScrapeUntil(t, addr, "the expiry in the metrics", func(body string) bool {
		return strings.Contains(body, `mcp_watchdog_sessions_expired_total{server="mem"} 1`)
	})
	if strings.Contains(body, id) || strings.Contains(body, id[:8]) {
		t.Fatal("the scrape carries a session id")
	}
	if !strings.Contains(body, `mcp_watchdog_server_state{server="mem",state="down"} 1`) {
		t.Errorf("a server on a closed port is not shown down:\n%s", body)
	}
}
