package health

import (
	"testing"
	"time"
)

// A server's era as its liveness checks learn it: modern-only makes it
// stateless (one server_mode that names the era, nothing kept warm);
// down, its era is to be learned again (it may come back in another);
// back legacy, its sessions are kept warm again, and the journal says so.
// The proxy's bridge is journaled once a run.
func TestServerEra(t *testing.T) {
	now := time.Date(2026, 12, 5, 8, 0, 0, 0, time.UTC)
	m := New(Config{HostName: "DSH", ClientName: "dsh-mcp-client", Servers: []ServerConfig{
		{Name: "mem", URL: "http://127.0.0.1:1/mcp", IdleTimeout: time.Minute}}})
	m.Apply(HostUp{PID: 7, Started: now.Add(-time.Hour)}, now)
	m.Apply(StoreSnapshot{Server: "mem", Sessions: []StoreSession{
		{ID: "s-1", Client: "dsh-mcp-client", LastActivity: now, Created: now}}}, now)
	if got := m.Status(now).Servers[0].Era; got != "" {
		t.Fatalf("era before any check: %q", got)
	}
	evs := m.Apply(LivenessAnswered{Server: "mem", Outcome: OutcomeAlive, Era: EraLegacy}, now)
	if len(evs) != 0 || m.Era("mem") != EraLegacy || m.Status(now).Servers[0].Era != EraLegacy {
		t.Fatalf("a legacy server: events %+v, era %q", evs, m.Era("mem"))
	}
	if len(m.WarmTargets(now.Add(40*time.Second))) != 1 {
		t.Fatal("the host's session on a legacy server is not kept warm")
	}

	at := now.Add(time.Minute)
	m.Apply(LivenessAnswered{Server: "mem", Outcome: OutcomeDown, Detail: "refused"}, at)
	if m.Era("mem") != "" || m.Status(at).Servers[0].Era != EraLegacy {
		t.Fatalf("down: era to learn %q, status %q; want none to go by, the last one shown", m.Era("mem"), m.Status(at).Servers[0].Era)
	}
	evs = m.Apply(LivenessAnswered{Server: "mem", Outcome: OutcomeStateless, Era: EraModernOnly, Detail: "-32022"}, at)
	mode := only(t, evs, EvServerMode)
	if mode.Extra["era"] != EraModernOnly || mode.Extra["mode"] != string(Stateless) {
		t.Fatalf("server_mode %+v", mode)
	}
	if got := m.Status(at).Servers[0]; got.Era != EraModernOnly || got.Mode != Stateless {
		t.Fatalf("status era %q mode %q", got.Era, got.Mode)
	}
	if targets := m.WarmTargets(at.Add(40 * time.Second)); len(targets) != 0 {
		t.Fatalf("a modern-only server is kept warm: %+v", targets)
	}

	bridge := only(t, m.Apply(ProxyBridging{Server: "mem"}, at), EvServerMode)
	if bridge.Extra["bridged"] != true {
		t.Fatalf("the bridge: %+v", bridge)
	}
	if again := m.Apply(ProxyBridging{Server: "mem"}, at); len(again) != 0 {
		t.Fatalf("the bridge journaled twice: %+v", again)
	}

	later := at.Add(time.Minute)
	back := only(t, m.Apply(LivenessAnswered{Server: "mem", Outcome: OutcomeAlive, Era: EraLegacy}, later), EvServerMode)
	if back.Extra["era"] != EraLegacy || m.Status(later).Servers[0].Mode == Stateless {
		t.Fatalf("back legacy: %+v, mode %q", back, m.Status(later).Servers[0].Mode)
	}
}

func only(t *testing.T, evs []Event, kind EventKind) Event {
	t.Helper()
	var found []Event
	for _, ev := range evs {
		if ev.Kind == kind {
			found = append(found, ev)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d %s events in %+v, want one", len(found), kind, evs)
	}
	return found[0]
}
