package health

import (
	"strings"
	"testing"
	"time"
)

// Long: a table of cases, one per host behaviour and what teaches it.
// Each: the host runs (pid 42), its session leaves the store (a loss),
// then a new session of its client appears, then it is lost again.
func TestLossesSayWhatTheHostDoes(t *testing.T) {
	t.Parallel()
	const T = time.Hour
	host := sess("host-session-0001", hostClient, t0, t0)
	host2 := sess("host-session-0002", hostClient, t0.Add(time.Minute), t0.Add(time.Minute))
	up := func(pid int32) Signal { return Signal{Kind: SigHostUp, PID: pid, Started: t0.Add(-T)} }
	tests := []struct {
		name                  string
		selfHealing, patch    bool
		newRun                bool   // the host restarted before its new session
		healing               bool   // a heal of the watchdog's was under way
		first, second, source string // what the two losses say, how the recovery was known
	}{
		{"stuck by its profile, and never seen to heal", false, false, true, false, "its next call will fail", "its next call will fail", ""},
		{"self-healing by its profile", true, false, false, false, "re-initializes on its next call", "re-initializes on its next call", ""},
		{"stuck by its profile, seen to heal itself", false, false, false, false, "its next call will fail", "re-initializes on its next call", onLossFromSeen},
		{"healed by the watchdog: nothing learned", false, false, false, true, "its next call will fail", "its next call will fail", ""},
		{"a patchable host's healing is its patch's", false, true, false, false, "its next call will fail", "its next call will fail", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := New(Config{HostName: "Cursor", ClientName: hostClient, SelfHealing: tt.selfHealing, Patchable: tt.patch,
				Servers: []ServerConfig{{Name: srv, URL: "http://127.0.0.1:14242/mcp", IdleTimeout: T}}})
			m.Apply(up(42), t0)
			m.Apply(snap(host), t0)
			evs := m.Apply(snap(), t0.Add(time.Second))
			checkLoss(t, evs, tt.first, tt.selfHealing)
			if tt.healing {
				m.Apply(Signal{Kind: SigHealStarted, Server: srv, Strategy: "host_restart", Within: time.Hour}, t0.Add(2*time.Second))
			}
			if tt.newRun {
				m.Apply(up(43), t0.Add(3*time.Second))
			}
			evs = m.Apply(snap(host2), t0.Add(time.Minute))
			rec := find(evs, EvRecovered)
			if rec == nil {
				t.Fatalf("no recovered: %+v", evs)
			}
			if got, _ := rec.Extra["on_loss_source"].(string); got != tt.source {
				t.Errorf("recovered says it was learned from %q, want %q (%+v)", got, tt.source, rec)
			}
			if tt.source == onLossFromSeen && !strings.Contains(rec.Detail, "heal itself") {
				t.Errorf("a learning recovery does not say so: %q", rec.Detail)
			}
			evs = m.Apply(snap(), t0.Add(2*time.Minute))
			checkLoss(t, evs, tt.second, tt.selfHealing || tt.source == onLossFromSeen)
			if m.HostHeals() != (tt.selfHealing || tt.source == onLossFromSeen) {
				t.Errorf("HostHeals() = %v", m.HostHeals())
			}
		})
	}
}

func find(evs []Event, k EventKind) *Event {
	for i := range evs {
		if evs[i].Kind == k {
			return &evs[i]
		}
	}
	return nil
}

func checkLoss(t *testing.T, evs []Event, says string, heals bool) {
	t.Helper()
	lost := find(evs, EvSessionLost)
	if lost == nil {
		t.Fatalf("no session_lost: %+v", evs)
	}
	if !strings.Contains(lost.Detail, says) {
		t.Errorf("loss %q does not say %q", lost.Detail, says)
	}
	want := onLossStuck
	if heals {
		want = onLossSelfHealing
	}
	if lost.Extra["on_loss"] != want || lost.Extra["host"] != "Cursor" {
		t.Errorf("loss fields %v, want on_loss %s and host Cursor", lost.Extra, want)
	}
}
