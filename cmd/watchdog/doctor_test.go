package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/demoserver"
	"github.com/mcpwatchdog/watchdog/internal/doctor"
	"github.com/mcpwatchdog/watchdog/internal/testbed/daemontest"
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
	var rep doctor.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("doctor --json: %v: %s", err, out)
	}
	byCheck := map[string]doctor.Finding{}
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

// TestDoctorHostLogWithoutProcess: the host's log is being written but no
// process matches host.process: doctor says which log, how long ago, and
// what to set, in --json and in text.
//
// Long: each case writes its own log and runs doctor twice.
func TestDoctorHostLogWithoutProcess(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		inState bool          // the log is STATE_DIR/host.log, not one of host.logs
		age     time.Duration // how long ago the log was last written
		problem bool
	}{
		{"host.logs written just now", false, 0, true},
		{"STATE_DIR/host.log written a minute ago", true, time.Minute, true},
		{"host.logs written an hour ago", false, time.Hour, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			state := filepath.Join(dir, "state")
			logPath := filepath.Join(dir, "logs", "host-app.log")
			if tc.inState {
				logPath = filepath.Join(state, "host.log")
			}
			writeAged(t, logPath, tc.age)
			process := fmt.Sprintf("wd-nohost-%d", time.Now().UnixNano())
			cfg := daemontest.WriteConfig(t, dir, fmt.Sprintf(`
[host]
process = %q
port = 0
logs = [%q]
[[server]]
name = "mem"
url = "http://127.0.0.1:9/mcp"
`, process, filepath.Join(dir, "logs", "*.log")))
			_, out, stderr := runWatchdog(t, "doctor", "--json", "--config", cfg, "--state-dir", state)
			var rep doctor.Report
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatalf("doctor --json: %v: %s %s", err, out, stderr)
			}
			var host doctor.Finding
			for _, f := range rep.Findings {
				if f.Check == "host" {
					host = f
				}
			}
			if host.OK || host.Problem != tc.problem {
				t.Fatalf("host finding %+v, want ok=false problem=%v", host, tc.problem)
			}
			if !tc.problem {
				return
			}
			for _, want := range []string{logPath, "ago", process} {
				if !strings.Contains(host.Detail, want) {
					t.Errorf("detail %q does not name %q", host.Detail, want)
				}
			}
			for _, want := range []string{"host.process", "ps -o args", "host.port"} {
				if !strings.Contains(host.Fix, want) {
					t.Errorf("fix %q does not mention %q", host.Fix, want)
				}
			}
			_, text, _ := runWatchdog(t, "doctor", "--config", cfg, "--state-dir", state)
			if !strings.Contains(text, "FIX host: ") || !strings.Contains(text, "fix: "+host.Fix) {
				t.Errorf("text report lacks the host problem and its fix:\n%s", text)
			}
		})
	}
}

// writeAged writes a log line to path and dates it age ago.
func writeAged(t *testing.T, path string, age time.Duration) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("INFO [mcp] connected\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	when := time.Now().Add(-age)
	if err := os.Chtimes(path, when, when); err != nil {
		t.Fatal(err)
	}
}
