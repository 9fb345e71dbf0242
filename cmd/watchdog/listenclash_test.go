package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestListenClashExitsTwo: a proxy_listen spelt otherwise than the
// metrics_listen it would share a socket with is a bad config (exit 2,
// both keys named with their lines) for `run` and `doctor`, not an
// "address already in use" once the daemon runs.
func TestListenClashExitsTwo(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "config.toml")
	body := "metrics_listen = \"127.0.0.1:14299\"\n[[server]]\nname = \"mem\"\nurl = \"http://127.0.0.1:1/mcp\"\nproxy_listen = \"localhost:14299\"\n"
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"run", "--headless"}, {"doctor"}} {
		code, _, stderr := runWatchdog(t, append(args, "--config", p, "--state-dir", filepath.Join(dir, "state"))...)
		if code != exitUsage {
			t.Fatalf("%v: exit %d, want 2; stderr: %s", args, code, stderr)
		}
		for _, w := range []string{"config.toml:5", "server[0].proxy_listen", `metrics_listen ("127.0.0.1:14299", line 1)`, "127.0.0.1:14299"} {
			if !strings.Contains(stderr, w) {
				t.Errorf("%v: stderr %q does not name %q", args, stderr, w)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "state", "events.jsonl")); err == nil {
		t.Error("a clashing config still started a daemon")
	}
}
