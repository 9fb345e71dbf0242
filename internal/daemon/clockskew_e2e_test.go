//go:build watchdogdebug

package daemon_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/daemon"
	"github.com/mcpwatchdog/watchdog/internal/fsutil"
	"github.com/mcpwatchdog/watchdog/internal/testbed/daemontest"
)

// TestClockSkewJumpsReachTheDaemon: a jump written to the debug skew
// file, ahead and back, is each a `woke` in the journal, as the chaos
// soak's clock fault needs. (That the file is watched rather than polled
// is TestWallClockWatchesItsFile's.)
func TestClockSkewJumpsReachTheDaemon(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	skew := filepath.Join(dir, "skew", "clock-skew")
	mustWrite := func(s string) {
		t.Helper()
		if err := fsutil.WriteAtomic(skew, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := fsutil.PrivateDir(filepath.Dir(skew)); err != nil {
		t.Fatal(err)
	}
	mustWrite("0s")
	cfg := daemontest.WriteConfig(t, dir, `
[host]
process = ""
port = 0
[[server]]
name = "mem"
url = "http://127.0.0.1:9/mcp"
idle_timeout = "10s"
`)
	state := filepath.Join(dir, "state")
	var opts daemon.Options
	opts.ClockSkewFile = skew
	startDaemonOpts(t, cfg, state, opts)
	for i, jump := range []string{"40s", "0s"} {
		mustWrite(jump)
		daemontest.WaitEvent(t, state, "woke", i+1, 15*time.Second)
	}
}
