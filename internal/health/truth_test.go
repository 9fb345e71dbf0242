package health

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// Measurement 1 of issue 14: an incident read back after a restart must not
// be "recovered" by the very session that was lost. The journal only keeps
// masked ids, so a restore with the masked id compared the host's full id
// with it, found them different and journaled a false recovery.
func TestRestoredIncidentIsNotRecoveredByTheLostSession(t *testing.T) {
	t.Parallel()
	lost := sess("0f8e1c2d-9a7b-4a5b", hostClient, t0, t0)
	tests := []struct {
		name     string
		restored string // what the daemon read back
		want     []EventKind
	}{
		{"full id from the private state", lost.ID, nil},
		{"id unknown", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := newTestModel(time.Hour)
			m.RestoreIncident(srv, tt.restored, t0.Add(time.Minute))
			m.Apply(snap(lost), t0.Add(2*time.Minute)) // still in the store
			evs := m.Apply(HostUp{PID: 42, Started: t0.Add(-time.Hour)}, t0.Add(3*time.Minute))
			if got := kinds(evs); slices.Contains(got, EvRecovered) {
				t.Fatalf("events %v: the host still holds the lost session, nothing recovered (%+v)", got, evs)
			}
			if _, _, open := m.Incident(srv); !open {
				t.Fatal("the incident closed")
			}
		})
	}
}

// A restored incident whose lost id is unknown is recovered by a session
// opened after the loss, and the recovery names that new session.
func TestRestoredUnknownIncidentRecoversOnNewSession(t *testing.T) {
	t.Parallel()
	m := newTestModel(time.Hour)
	m.RestoreIncident(srv, "", t0)
	m.Apply(snap(sess("old-session-00001", hostClient, t0.Add(-time.Hour), t0)), t0.Add(time.Second))
	evs := m.Apply(snap(sess("old-session-00001", hostClient, t0.Add(-time.Hour), t0),
		sess("new-session-00002", hostClient, t0.Add(2*time.Second), t0.Add(2*time.Second))), t0.Add(2*time.Second))
	if got := kinds(evs); !slices.Equal(got, []EventKind{EvSessionNew, EvRecovered}) {
		t.Fatalf("events %v", got)
	}
	if as[Recovery](evs[1]).NewSession != "new-session-00002" {
		t.Fatalf("new session %q", as[Recovery](evs[1]).NewSession)
	}
}

// Measurement 4 of issue 14: a loss in the host's own log counts even when
// the process watcher has not found the host, and a host-log loss naming
// no server is placed or journaled, never dropped.
func TestHostLogLossIsNeverDropped(t *testing.T) {
	t.Parallel()
	two := Config{HostName: "DSH", ClientName: hostClient, HostWatched: true, Servers: []ServerConfig{
		{Name: "a", IdleTimeout: time.Hour}, {Name: "b", IdleTimeout: time.Hour}}}
	hostDown := HostDown{}
	lostLine := func(server string) Observation {
		return SessionLost{LogLine: LogLine{Server: server, HostLog: true, Detail: "host.log reports session_not_found"}}
	}
	tests := []struct {
		name       string
		cfg        Config
		setup      []Observation
		line       Observation
		wantServer string
		incident   bool
	}{
		{"host not found by the watcher", one(), []Observation{hostDown}, lostLine(srv), srv, true},
		{"no server named, one stateful", two, []Observation{StoreSnapshot{Server: "b"}}, lostLine(""), "b", true},
		{"no server named, the beacon shows b failing", two, []Observation{
			BeaconSeen{Held: map[string]Held{"a": {Session: "sa-0000000001", Connected: true}, "b": {}}}},
			lostLine(""), "b", true},
		{"no server named, two stateful", two, []Observation{
			StoreSnapshot{Server: "a"}, StoreSnapshot{Server: "b"}}, lostLine(""), "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := New(tt.cfg)
			for _, sig := range tt.setup {
				m.Apply(sig, t0)
			}
			evs := m.Apply(tt.line, t0.Add(time.Second))
			if len(evs) != 1 || evs[0].Kind != EvSessionLost || evs[0].Server != tt.wantServer || as[Loss](evs[0]).Incident != tt.incident {
				t.Fatalf("events %+v, want one session_lost on %q (incident %v)", evs, tt.wantServer, tt.incident)
			}
			if tt.name == "host not found by the watcher" && !strings.Contains(evs[0].Detail, "no DSH process was found") {
				t.Fatalf("detail %q does not say how the host was seen", evs[0].Detail)
			}
		})
	}
}

func one() Config {
	return Config{HostName: "DSH", ClientName: hostClient, HostWatched: true,
		Servers: []ServerConfig{{Name: srv, IdleTimeout: time.Hour}}}
}

// Measurement 8 of issue 14: an at-risk event in the same instant as the
// loss ("expires in 0s") is no warning. A session whose at-risk window is
// shorter than a tick is never announced at risk.
func TestAtRiskNeverInTheLastMoment(t *testing.T) {
	t.Parallel()
	m := newTestModel(2 * time.Second)
	host := sess("host-session-0001", hostClient, t0, t0)
	m.Apply(snap(host), t0)
	for at := time.Duration(0); at <= 2*time.Second; at += 100 * time.Millisecond {
		for _, ev := range m.Tick(t0.Add(at)) {
			if ev.Kind == EvSessionAtRisk {
				t.Fatalf("at %s: %s (expires in %s)", at, ev.Kind, as[Risk](ev).ExpiresIn)
			}
		}
	}
}
