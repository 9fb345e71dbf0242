package daemon_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/mask"
	"github.com/mcpwatchdog/watchdog/internal/testbed/repro"
)

// TestBeaconIsTheHostsWord: with the real dsh-mcp-client 0.1.0-rc.8
// patched, the watchdog takes the host's session from the client's own
// beacon: status says so and names exactly the session the client holds;
// a kill -9 of the client leaves its beacon behind, and the watchdog
// removes it within about one tick.
func TestBeaconIsTheHostsWord(t *testing.T) {
	t.Parallel()
	state := filepath.Join(t.TempDir(), "state")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	r, err := repro.Run(ctx, repro.Options{Server: repro.GoSDK, Client: repro.Real, Patched: true,
		IdleTimeout: 2 * time.Second, WatchdogState: state, Watchdog: daemonCmd, KillHost: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.Verdict != repro.Recovered || r.Beacon == nil || r.WatchdogStatus == nil {
		t.Fatalf("run: %+v", r)
	}
	held, ok := r.Beacon.Server(r.ServerName)
	if !ok || held.SessionID == "" {
		t.Fatalf("the beacon names no session: %+v", r.Beacon)
	}
	srv := r.WatchdogStatus.Servers[0]
	if srv.Source != health.SourceBeacon {
		t.Fatalf("status source %q, want beacon", srv.Source)
	}
	if cur := currentOf(srv); cur != mask.ID(held.SessionID) {
		t.Fatalf("status current session %q, want the one the client holds, %q", cur, mask.ID(held.SessionID))
	}
	// One tick is a second; the rest is a loaded machine's scheduling.
	if !r.BeaconRemoved || r.BeaconGoneAfter > 3*time.Second {
		t.Fatalf("beacon of the killed client removed %v after %v, want within about a tick", r.BeaconRemoved, r.BeaconGoneAfter)
	}
}

func currentOf(s health.ServerStatus) string {
	for _, sess := range s.Sessions {
		if sess.Current {
			return sess.ID
		}
	}
	return ""
}
