package notify

import (
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/health"
)

// The bubbles of one incident share a thread (a desktop shows them as one
// bubble updated in place); the next incident, another server's, a
// summary and an at-risk warning are bubbles of their own.
func TestIncidentBubblesShareAThread(t *testing.T) {
	t.Parallel()
	failed := ev(health.EvHealFailed, "mem", "restart the host yourself", nil)
	got := runMessages(t, []step{
		{ev: lost("mem")}, {at: time.Second, ev: failed}, {at: 61 * time.Minute, tick: true},
		{at: 62 * time.Minute, ev: recovered("mem", 60000)},
		{at: 70 * time.Minute, ev: lost("mem")}, {at: 71 * time.Minute, ev: lost("notes")},
		{at: 80 * time.Minute, ev: ev(health.EvSessionAtRisk, "search", "idle", health.Risk{ExpiresIn: 30 * time.Minute})},
	}, nil)
	if len(got) != 7 {
		t.Fatalf("bubbles %v, want loss, heal failure, reminder, recovery, two losses, at risk", got)
	}
	first := got[0].Thread
	for _, m := range got[1:4] {
		if first == "" || m.Thread != first {
			t.Errorf("%q is in thread %q, want the incident's %q", m.Title, m.Thread, first)
		}
	}
	if got[4].Thread == first || got[4].Thread == "" || got[5].Thread == got[4].Thread || got[5].Thread == "" {
		t.Errorf("the next incident and another server's: threads %q and %q (the first was %q)", got[4].Thread, got[5].Thread, first)
	}
	if got[6].Thread != "" {
		t.Errorf("an at-risk warning is in thread %q", got[6].Thread)
	}
}
