package daemon_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/testbed/daemontest"
	"github.com/mcpwatchdog/watchdog/internal/testbed/repro"
)

// TestWatchdogHealsBeforeTheNextCall is the whole loop: a real Go SDK
// server expires the patched client's idle session; the watchdog daemon
// sees it vanish from the store, triggers the client's recovery, and the
// user's FIRST call after the loss succeeds.
func TestWatchdogHealsBeforeTheNextCall(t *testing.T) {
	t.Parallel()
	state := filepath.Join(t.TempDir(), "state")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	// NoRetry (patch v1): with v2 the first call would succeed even without
	// the trigger; this proves the daemon's trigger did it.
	r, err := repro.Run(ctx, repro.Options{Server: repro.GoSDK, Client: repro.StandIn, Patched: true, NoRetry: true,
		IdleTimeout: 2 * time.Second, WatchdogState: state,
		// A daemon process of its own: repro gives it the host's HOME.
		Watchdog: daemonCmd})
	if err != nil {
		t.Fatal(err)
	}
	if r.Verdict != repro.Recovered || r.FirstCallFailed || r.FailedCalls != 0 || !r.TriggerConfirmed {
		t.Fatalf("with the watchdog running: %+v; want the first call after the loss to succeed", r)
	}
	rec := daemontest.Journal(t, state, "recovered")
	if len(rec) != 1 || rec[0].Str("strategy") != "client_recovery" {
		t.Fatalf("recovered events %v, want one by client_recovery", rec)
	}
	if started := daemontest.Journal(t, state, "heal_started"); len(started) != 1 || started[0].Str("strategy") != "client_recovery" {
		t.Fatalf("heal_started %v, want the trigger", started)
	}
	if applied := daemontest.Journal(t, state, "patch_applied"); len(applied) != 1 {
		t.Fatalf("patch_applied events %v, want the daemon to have seen the patch once", applied)
	}
}
