package health

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func beaconSig(held map[string]Held) Signal { return Signal{Kind: SigBeacon, Held: held} }

// With a live beacon the host's session is the one it names, not the newest
// of its client name: keep-warm pings exactly that one, and status says the
// judgement comes from the beacon.
func TestBeaconNamesTheHostSession(t *testing.T) {
	t.Parallel()
	m := newTestModel(time.Hour)
	older := sess("held-session-0001", hostClient, t0, t0)
	newer := sess("other-proc-000002", hostClient, t0.Add(time.Minute), t0.Add(time.Minute))
	m.Apply(snap(older, newer), t0)
	if got := m.WarmTargets(t0.Add(2 * time.Minute)); len(got) != 1 || got[0].SessionID != newer.ID {
		t.Fatalf("inferred target %+v, want the newest", got)
	}
	if src := m.Status(t0).Servers[0].Source; src != SourceInferred {
		t.Fatalf("source %q", src)
	}
	m.Apply(beaconSig(map[string]Held{srv: {Session: older.ID, Connected: true, Since: t0}}), t0.Add(2*time.Minute))
	if got := m.WarmTargets(t0.Add(2 * time.Minute)); len(got) != 1 || got[0].SessionID != older.ID {
		t.Fatalf("beacon target %+v, want the held one", got)
	}
	if src := m.Status(t0).Servers[0].Source; src != SourceBeacon {
		t.Fatalf("source %q", src)
	}
}

// A session the beacon names before the store shows it (or on a server
// with no store) is kept warm from the client's own last request.
func TestBeaconSessionWithoutStoreIsKeptWarm(t *testing.T) {
	t.Parallel()
	m := newTestModel(10 * time.Minute)
	m.Apply(beaconSig(map[string]Held{srv: {Session: "held-session-0001", Connected: true, Since: t0, LastRequest: t0.Add(time.Minute)}}), t0)
	got := m.WarmTargets(t0.Add(3 * time.Minute))
	if len(got) != 1 || got[0].SessionID != "held-session-0001" || got[0].Idle != 2*time.Minute || !got[0].ActivityKnown {
		t.Fatalf("targets %+v", got)
	}
}

// The beacon's own state is a loss; a different connected session that the
// server knows recovers it, naming the new session; one it does not know
// must answer a ping first.
func TestBeaconLossAndRecovery(t *testing.T) {
	t.Parallel()
	const a, b = "held-session-0001", "held-session-0002"
	tests := []struct {
		name     string
		inStore  bool
		pinged   bool
		wantLast []EventKind
	}{
		{"the store knows the new session", true, false, []EventKind{EvSessionNew, EvRecovered}},
		{"only a ping can tell", false, true, []EventKind{EvRecovered}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := newTestModel(time.Hour)
			m.Apply(snap(sess(a, hostClient, t0, t0)), t0)
			m.Apply(beaconSig(map[string]Held{srv: {Session: a, Connected: true, Since: t0}}), t0)
			evs := m.Apply(beaconSig(map[string]Held{srv: {Session: a}}), t0.Add(time.Second))
			if got := kinds(evs); !slices.Equal(got, []EventKind{EvSessionLost}) || !evs[0].Incident || evs[0].Source != SourceBeacon {
				t.Fatalf("loss events %+v", evs)
			}
			if evs := m.Apply(beaconSig(map[string]Held{srv: {Session: b, Connected: true, Since: t0.Add(2 * time.Second)}}), t0.Add(2*time.Second)); len(evs) != 0 {
				t.Fatalf("recovered before the server showed it knows the new session: %+v", evs)
			}
			if !tt.inStore {
				if v := m.Verify(t0); len(v) != 1 || v[0].SessionID != b {
					t.Fatalf("verify %+v", v)
				}
				evs = m.Apply(Signal{Kind: SigKeepWarm, Server: srv, Session: b, Outcome: OutcomeAlive}, t0.Add(3*time.Second))
			} else {
				evs = m.Apply(snap(sess(a, hostClient, t0, t0), sess(b, hostClient, t0.Add(2*time.Second), t0.Add(2*time.Second))), t0.Add(3*time.Second))
			}
			if got := kinds(evs); !slices.Equal(got, tt.wantLast) {
				t.Fatalf("events %v", got)
			}
			rec := evs[len(evs)-1]
			if rec.Session != a || rec.NewSession != b || rec.Source != SourceBeacon {
				t.Fatalf("recovered %+v", rec)
			}
		})
	}
}

// Issue 14 item 7: sessions that vanish because their server restarted are
// lost ("server restarted"), not expired, however long they sat idle; a
// session that outlived the restart and expires later is expired.
func TestServerRestartEndsAreLosses(t *testing.T) {
	t.Parallel()
	const T = 3 * time.Second
	m := newTestModel(T)
	p1, p2 := t0.Add(-time.Hour), t0.Add(10*time.Second)
	host := sess("host-session-0001", hostClient, t0, t0)
	other := sess("other-session-001", "claude", t0, t0)
	kept := sess("kept-session-0001", "claude", t0, t0.Add(9*time.Second))
	at := func(d time.Duration, started time.Time, ss ...StoreSession) []Event {
		return m.Apply(Signal{Kind: SigStoreSnapshot, Server: srv, Sessions: ss, ServerStarted: started}, t0.Add(d))
	}
	at(0, p1, host, other, kept)
	evs := at(11*time.Second, p2, kept) // the new process kept one session
	if got := kinds(evs); !slices.Equal(got, []EventKind{EvSessionLost, EvSessionLost}) {
		t.Fatalf("events %v (%+v)", got, evs)
	}
	for _, ev := range evs {
		if !contains(ev.Detail, "server restarted") {
			t.Fatalf("detail %q", ev.Detail)
		}
	}
	evs = at(20*time.Second, p2)
	if got := kinds(evs); !slices.Equal(got, []EventKind{EvSessionExpired}) {
		t.Fatalf("after the restart: %v", got)
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
