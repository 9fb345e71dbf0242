package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwatchdog/watchdog/internal/testbed/daemontest"
	"github.com/mcpwatchdog/watchdog/internal/testbed/demoserver"
)

// TestDoctor: what doctor finds on a real server, store and log, and that
// every problem comes with its fix.
func TestDoctor(t *testing.T) {
	t.Parallel()
	srv, err := demoserver.Start(context.Background(), demoserver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	dir := t.TempDir()
	store := filepath.Join(dir, "mcp-sessions.json")
	os.WriteFile(store, []byte(`{"sessions":[{"id":"0f8e4a1c-7b2d-4e6f-9a3b-5c1d2e3f4a5b","client_name":"x"}]}`), 0o600)
	srvLog := filepath.Join(dir, "server.log")
	os.WriteFile(srvLog, []byte("INFO up\n"), 0o600)
	cfg := daemontest.WriteConfig(t, dir, fmt.Sprintf(`
[host]
process = ""
port = 0
client_module = %q
[[server]]
name = "mem"
url = %q
logs = [%q]
store = %q
[[server]]
name = "gone"
url = "http://127.0.0.1:9/mcp"
`, filepath.Join(dir, "nope", "index.js"), srv.URL(), srvLog, store))
	code, out, stderr := runWatchdog(t, "doctor", "--json", "--config", cfg, "--state-dir", filepath.Join(dir, "state"))
	if code != exitFailed {
		t.Fatalf("doctor exit %d with problems, want 1; stderr %s", code, stderr)
	}
	var rep doctorReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("doctor --json: %v: %s", err, out)
	}
	byCheck := map[string]finding{}
	for _, f := range rep.Findings {
		byCheck[f.Check] = f
		if f.Problem && f.Fix == "" {
			t.Errorf("problem without a fix: %+v", f)
		}
	}
	want := map[string]bool{"server mem": true, "server mem store": true, "server mem logs": true,
		"server gone": false, "daemon": false, "client module": false, "host": false}
	for check, ok := range want {
		f, found := byCheck[check]
		if !found || f.OK != ok {
			t.Errorf("%s: %+v (found %v), want ok=%v", check, f, found, ok)
		}
	}
	if !strings.Contains(byCheck["server mem store"].Detail, "1 session") {
		t.Errorf("store finding %q does not count the session", byCheck["server mem store"].Detail)
	}
	if strings.Contains(out, "0f8e4a1c-7b2d") {
		t.Error("doctor printed a session id")
	}
}
