package daemon

import (
	"testing"

	"github.com/mcpwatchdog/watchdog/healer/clientpatch"
	"github.com/mcpwatchdog/watchdog/internal/config"
	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/journal"
)

// A restart's first ping can be answered 404 before the daemon has looked
// at the client module. Healing then took the unknown patch state for an
// unpatched client and journaled "the client is not patched" for a patched
// one. The incident now waits for that look, and is healed on it.
func TestNoHealBeforeTheClientIsLookedAt(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	j, err := journal.Open(dir, journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	cfg := config.Default()
	server := cfg.Servers[0].Name
	var o Options
	o.fill()
	o.Home = t.TempDir()
	d := newDaemon(cfg, dir, "", o, j)
	ctx := t.Context()
	d.handle(ctx, signalIn{o: health.KeepWarmAnswered{Server: server, Session: "sess-0123456789-lost", Outcome: health.OutcomeLost, Detail: "the server answered 404"}})
	if got := kinds(t, dir); !got[health.EvSessionLost] || got[health.EvHealFailed] || got[health.EvHealStarted] {
		t.Fatalf("before the client was looked at: journaled %v, want the loss and no heal yet", got)
	}
	applied := clientpatch.Look{Module: "/opt/lib/node_modules/client/lib/index.js", Status: clientpatch.Status{State: clientpatch.StateApplied}}
	d.handle(ctx, clientIn{applied})
	if got := kinds(t, dir); !got[health.EvHealStarted] || got[health.EvHealFailed] {
		t.Fatalf("after the look found the patch: journaled %v, want heal_started and no heal_failed", got)
	}
	if len(d.mainHost().heal.waiting) != 0 {
		t.Fatalf("still waiting: %v", d.mainHost().heal.waiting)
	}
}

func kinds(t *testing.T, dir string) map[health.EventKind]bool {
	t.Helper()
	recs, err := journal.ReadTail(dir, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	got := map[health.EventKind]bool{}
	for _, r := range recs {
		got[r.Kind] = true
	}
	return got
}
