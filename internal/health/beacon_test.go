package health

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func beaconSig(held map[string]Held) Observation { return BeaconSeen{Held: held} }

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

// A killed host's beacon stays on disk until it is swept: once the process
// watcher says the host is down, nothing of it is pinged, neither the
// session its beacon names nor a new one it would verify.
func TestDeadHostBeaconIsNotPinged(t *testing.T) {
	t.Parallel()
	const lost, candidate = "held-session-0001", "held-session-0002"
	tests := []struct {
		name  string
		setup func(m *Model)
	}{
		{"held, no store", func(m *Model) {}},
		{"held, in the store", func(m *Model) { m.Apply(snap(sess(lost, hostClient, t0, t0)), t0) }},
		{"a candidate to verify", func(m *Model) {
			m.Apply(snap(sess(lost, hostClient, t0, t0)), t0)
			m.Apply(snap(), t0.Add(time.Second))
			m.Apply(beaconSig(map[string]Held{srv: {Session: candidate, Connected: true, Since: t0.Add(time.Second)}}), t0.Add(time.Second))
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := newTestModel(10 * time.Minute)
			m.Apply(HostUp{PID: 42, Started: t0.Add(-time.Hour)}, t0)
			m.Apply(beaconSig(map[string]Held{srv: {Session: lost, Connected: true, Since: t0}}), t0)
			tc.setup(m)
			m.Apply(HostDown{}, t0.Add(2*time.Second))
			now := t0.Add(9 * time.Minute)
			if got := m.WarmTargets(now); len(got) != 0 {
				t.Errorf("dead host's sessions to keep warm: %+v", got)
			}
			if got := m.Verify(now); len(got) != 0 {
				t.Errorf("dead host's sessions to verify: %+v", got)
			}
		})
	}
}

// A host restarted: the new process's beacon starts with nothing
// connected. That is a new client, not the old one dropping its sessions.
func TestNewClientBeaconIsNoDrop(t *testing.T) {
	t.Parallel()
	const a = "held-session-0001"
	m := newTestModel(time.Hour)
	m.Apply(snap(sess(a, hostClient, t0, t0)), t0)
	m.Apply(BeaconSeen{PID: 100, Held: map[string]Held{srv: {Session: a, Connected: true, Since: t0}}}, t0)
	if evs := m.Apply(BeaconSeen{PID: 200, Held: map[string]Held{srv: {}}}, t0.Add(time.Minute)); len(evs) != 0 {
		t.Fatalf("a new client's first beacon: %+v", evs)
	}
	m.Apply(BeaconSeen{PID: 200, Held: map[string]Held{srv: {Session: a}}}, t0.Add(2*time.Minute))
	if evs := m.Apply(BeaconSeen{PID: 200, Held: map[string]Held{srv: {Session: a, Connected: true}}}, t0.Add(3*time.Minute)); len(evs) != 0 {
		t.Fatalf("connecting: %+v", evs)
	}
	evs := m.Apply(BeaconSeen{PID: 200, Held: map[string]Held{srv: {Session: a}}}, t0.Add(4*time.Minute))
	if got := kinds(evs); !slices.Equal(got, []EventKind{EvSessionLost}) {
		t.Fatalf("the same client dropping its session: %v", got)
	}
}

// A heal asks the client for a new session; when the client got one on
// its own first, the heal's late trigger retires that healthy new session.
// The beacon then shows it reconnecting: that is the heal at work, not a
// new loss. Long after a heal, the same change is a loss again.
func TestBeaconDropAfterOurHealIsNoLoss(t *testing.T) {
	t.Parallel()
	const lost, fresh = "held-session-0001", "held-session-0002"
	for _, tc := range []struct {
		name     string
		dropAt   time.Duration
		wantLoss bool
	}{
		{"the late trigger, a second after the heal", 2 * time.Second, false},
		{"a minute after the heal", time.Minute, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := newTestModel(time.Hour)
			m.Apply(snap(sess(lost, hostClient, t0, t0)), t0)
			m.Apply(beaconSig(map[string]Held{srv: {Session: lost, Connected: true, Since: t0}}), t0)
			m.Apply(beaconSig(map[string]Held{srv: {Session: lost}}), t0.Add(time.Second))
			m.Apply(HealStarted{Server: srv, Strategy: "client_recovery"}, t0.Add(time.Second))
			m.Apply(snap(sess(lost, hostClient, t0, t0), sess(fresh, hostClient, t0.Add(time.Second), t0.Add(time.Second))), t0.Add(time.Second))
			evs := m.Apply(beaconSig(map[string]Held{srv: {Session: fresh, Connected: true, Since: t0.Add(time.Second)}}), t0.Add(time.Second))
			if got := kinds(evs); !slices.Equal(got, []EventKind{EvRecovered}) {
				t.Fatalf("recovery events %v", got)
			}
			evs = m.Apply(beaconSig(map[string]Held{srv: {Session: fresh}}), t0.Add(tc.dropAt))
			if got := slices.Contains(kinds(evs), EvSessionLost); got != tc.wantLoss {
				t.Fatalf("drop of the fresh session at +%s: events %+v, want a loss: %v", tc.dropAt, evs, tc.wantLoss)
			}
		})
	}
}

// The same late trigger across a restart: the heal was started by the
// daemon a kill -9 ended, and the one that took over restored the open
// incident and the heal's start from the journal (soak seed
// 1796033718940005853: the client retired the session it had got by
// itself 1.3 s after the old daemon's heal, and the new one called it lost).
func TestBeaconDropAfterTheLastRunsHealIsNoLoss(t *testing.T) {
	t.Parallel()
	const lost, fresh = "held-session-0001", "held-session-0002"
	m := newTestModel(time.Hour)
	healed := t0.Add(time.Second)
	m.RestoreIncident(srv, lost, t0)
	m.RestoreHealStarted(srv, healed)
	m.Apply(snap(sess(fresh, hostClient, healed, healed)), t0.Add(2*time.Second))
	evs := m.Apply(beaconSig(map[string]Held{srv: {Session: fresh, Connected: true, Since: healed}}), t0.Add(2*time.Second))
	if got := kinds(evs); !slices.Equal(got, []EventKind{EvRecovered}) {
		t.Fatalf("recovery events %v", got)
	}
	evs = m.Apply(beaconSig(map[string]Held{srv: {Session: fresh}}), t0.Add(3*time.Second))
	if slices.Contains(kinds(evs), EvSessionLost) {
		t.Fatalf("the last run's heal retiring the fresh session: %+v, want no loss", evs)
	}
	m.RestoreHealStarted(srv, t0) // an older heal does not move it back
	evs = m.Apply(beaconSig(map[string]Held{srv: {Session: fresh, Connected: true, Since: t0.Add(4 * time.Second)}}), t0.Add(4*time.Second))
	evs = append(evs, m.Apply(beaconSig(map[string]Held{srv: {Session: fresh}}), t0.Add(time.Minute))...)
	if !slices.Contains(kinds(evs), EvSessionLost) {
		t.Fatalf("a drop a minute after the heal: %+v, want a loss", evs)
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
			if got := kinds(evs); !slices.Equal(got, []EventKind{EvSessionLost}) || !as[Loss](evs[0]).Incident || as[Loss](evs[0]).Source != SourceBeacon {
				t.Fatalf("loss events %+v", evs)
			}
			if evs := m.Apply(beaconSig(map[string]Held{srv: {Session: b, Connected: true, Since: t0.Add(2 * time.Second)}}), t0.Add(2*time.Second)); len(evs) != 0 {
				t.Fatalf("recovered before the server showed it knows the new session: %+v", evs)
			}
			if !tt.inStore {
				if v := m.Verify(t0); len(v) != 1 || v[0].SessionID != b {
					t.Fatalf("verify %+v", v)
				}
				evs = m.Apply(KeepWarmAnswered{Server: srv, Session: b, Outcome: OutcomeAlive}, t0.Add(3*time.Second))
			} else {
				evs = m.Apply(snap(sess(a, hostClient, t0, t0), sess(b, hostClient, t0.Add(2*time.Second), t0.Add(2*time.Second))), t0.Add(3*time.Second))
			}
			if got := kinds(evs); !slices.Equal(got, tt.wantLast) {
				t.Fatalf("events %v", got)
			}
			rec := evs[len(evs)-1]
			if rec.Session != a || as[Recovery](rec).NewSession != b || as[Recovery](rec).Source != SourceBeacon {
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
		return m.Apply(StoreSnapshot{Server: srv, Sessions: ss, ServerStarted: started}, t0.Add(d))
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

// Soak run 10: a host killed a moment after it started left its beacon on
// disk (and, not yet reaped, looked alive); read while no host ran, it was
// taken for the host's word, and when the next host came up before its own
// beacon, the old host's session was pinged. A beacon speaks for the host
// only when its writer is the host process.
func TestAnotherProcessBeaconDoesNotSpeakForTheHost(t *testing.T) {
	t.Parallel()
	m := newTestModel(10 * time.Minute)
	old := sess("held-session-0001", hostClient, t0, t0)
	m.Apply(snap(old), t0)
	m.Apply(HostUp{PID: 42, Started: t0.Add(-time.Second)}, t0)
	m.Apply(HostDown{}, t0.Add(time.Second))
	m.Apply(BeaconSeen{PID: 42, Held: map[string]Held{srv: {Session: old.ID, Connected: true, Since: t0}}},
		t0.Add(1100*time.Millisecond))
	m.Apply(HostUp{PID: 43, Started: t0.Add(1500 * time.Millisecond)}, t0.Add(2*time.Second))
	if got := m.WarmTargets(t0.Add(3 * time.Second)); len(got) != 0 {
		t.Fatalf("the old host's session kept warm for the new host: %+v", got)
	}
	if src := m.Status(t0.Add(3 * time.Second)).Servers[0].Source; src == SourceBeacon {
		t.Fatalf("source %q: another process's beacon spoke for the host", src)
	}
	// The new host's own beacon speaks again.
	m.Apply(BeaconSeen{PID: 43, Held: map[string]Held{srv: {Session: "held-session-0002", Connected: true,
		Since: t0.Add(2 * time.Second), LastRequest: t0.Add(2 * time.Second)}}}, t0.Add(3*time.Second))
	if got := m.WarmTargets(t0.Add(4 * time.Second)); len(got) != 1 || got[0].SessionID != "held-session-0002" {
		t.Fatalf("the new host's beacon: targets %+v", got)
	}
}

// A ping whose sender took the session from the beacon (the start's, before
// the model has read any beacon) is journaled as the beacon's, not as the
// model's inference of the moment; the model's own targets keep its word.
func TestPingNamedByItsSender(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		namedBy IdentitySource
		want    IdentitySource
	}{
		{"the start's ping, from the beacon", SourceBeacon, SourceBeacon},
		{"the model's own target", "", SourceInferred},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := newTestModel(time.Hour)
			held := sess("held-session-0001", hostClient, t0, t0)
			m.Apply(snap(held), t0)
			evs := m.Apply(KeepWarmAnswered{Server: srv, Session: held.ID, Outcome: OutcomeAlive, NamedBy: tt.namedBy}, t0.Add(time.Second))
			if len(evs) != 1 || evs[0].Kind != EvKeepWarm || as[Ping](evs[0]).Source != tt.want {
				t.Fatalf("events %+v; want one keep_warm from %q", evs, tt.want)
			}
		})
	}
}
