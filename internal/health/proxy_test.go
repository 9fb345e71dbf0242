package health

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// A proxied server: what the proxy saw is journaled as a loss and its
// recovery, from the source "proxy"; the store and the server's log never
// make a session of it the host's (the proxy heals those itself, so no
// incident may open a heal or a host restart).
func TestProxiedServer(t *testing.T) {
	now := time.Date(2026, 12, 2, 8, 0, 0, 0, time.UTC)
	m := New(Config{HostName: "DSH", ClientName: "dsh-mcp-client", Servers: []ServerConfig{
		{Name: "mem", URL: "http://127.0.0.1:1/mcp", IdleTimeout: time.Minute, ProxyURL: "http://127.0.0.1:14243/mcp"}}})
	snap := func(ids ...string) Observation {
		sig := StoreSnapshot{Server: "mem"}
		for _, id := range ids {
			sig.Sessions = append(sig.Sessions, StoreSession{ID: id, Client: "dsh-mcp-client", LastActivity: now, Created: now})
		}
		return sig
	}
	m.Apply(snap("up-1"), now)
	for _, sig := range []Observation{
		snap(), // the host's client's session left the store
		SessionLost{LogLine: LogLine{Server: "mem", Session: "up-1", Detail: "Session not found"}},
	} {
		for _, ev := range m.Apply(sig, now.Add(time.Second)) {
			if ev.Kind == EvSessionLost || as[Loss](ev).Incident {
				t.Errorf("%T made an incident on a proxied server: %+v", sig, ev)
			}
		}
	}
	if _, _, open := m.Incident("mem"); open {
		t.Fatal("an incident is open on a proxied server")
	}
	evs := m.Apply(ProxyHealed{Server: "mem", Session: "up-1", NewSession: "up-2", Healed: true, Took: 37 * time.Millisecond, Detail: "the proxy sent the call again"}, now.Add(2*time.Second))
	if len(evs) != 2 || evs[0].Kind != EvSessionLost || evs[1].Kind != EvRecovered {
		t.Fatalf("events %+v, want session_lost then recovered", evs)
	}
	rec := evs[1]
	if r := as[Recovery](rec); r.Source != SourceProxy || r.Strategy != StrategyProxy || r.Took != 37*time.Millisecond || r.NewSession != "up-2" {
		t.Errorf("recovered = %+v; want source proxy, strategy proxy, took 37ms, new session up-2", rec)
	}
	if got := m.Status(now).Servers[0]; got.Source != SourceProxy || got.ProxyURL != "http://127.0.0.1:14243/mcp" {
		t.Errorf("status source %q, proxy url %q; want proxy and the proxy's URL", got.Source, got.ProxyURL)
	}
	failed := m.Apply(ProxyHealed{Server: "mem", Session: "up-2", Detail: "refused"}, now.Add(3*time.Second))
	if len(failed) != 1 || failed[0].Kind != EvWarning {
		t.Errorf("a recovery the proxy could not make: %+v, want one warning", failed)
	}
}

// A direct entry for a server that a proxy also serves: a session of the
// host's client name that the proxy opened upstream (its word comes
// first) is not the host's, so its loss opens no incident and nothing
// keeps it warm; a session the host opened directly still is the host's.
func TestDirectEntryBesideAProxy(t *testing.T) {
	now := time.Date(2026, 12, 2, 8, 0, 0, 0, time.UTC)
	m := New(Config{HostName: "DSH", ClientName: "dsh-mcp-client", Servers: []ServerConfig{
		{Name: "mem", URL: "http://127.0.0.1:1/mcp", IdleTimeout: time.Minute}}})
	snap := func(at time.Time, ids ...string) Observation {
		sig := StoreSnapshot{Server: "mem"}
		for _, id := range ids {
			sig.Sessions = append(sig.Sessions, StoreSession{ID: id, Client: "dsh-mcp-client", LastActivity: at, Created: at})
		}
		return sig
	}
	m.Apply(ProxyUpstream{Server: "mem", Session: "up-1"}, now)
	m.Apply(snap(now, "up-1"), now)
	if targets := m.WarmTargets(now.Add(40 * time.Second)); len(targets) != 0 {
		t.Fatalf("keep-warm targets %+v: the proxy's session taken for the host's", targets)
	}
	for _, ev := range m.Apply(SessionLost{LogLine: LogLine{Server: "mem", Session: "up-1", Detail: "Session not found"}}, now.Add(time.Second)) {
		if as[Loss](ev).Incident {
			t.Fatalf("the proxy's session's loss opened an incident: %+v", ev)
		}
	}
	later := now.Add(2 * time.Minute)
	m.Apply(snap(later, "direct-1"), later)
	evs := m.Apply(SessionLost{LogLine: LogLine{Server: "mem", Session: "direct-1", Detail: "Session not found"}}, later.Add(time.Second))
	if len(evs) == 0 || !as[Loss](evs[0]).Incident {
		t.Fatalf("the host's direct session's loss: %+v, want an incident", evs)
	}
}

// A direct entry with no store (logs only) never sees the proxy's session
// in a snapshot: a "not found" line for it, an hour on (kept warm all
// along, then a server restart), is still the proxy's, not the host's.
// The proxy's word is kept until the many it holds push it out.
func TestStorelessDirectEntryBesideAProxy(t *testing.T) {
	now := time.Date(2026, 12, 2, 8, 0, 0, 0, time.UTC)
	m := New(Config{HostName: "DSH", ClientName: "dsh-mcp-client", Servers: []ServerConfig{
		{Name: "mem", URL: "http://127.0.0.1:1/mcp", IdleTimeout: time.Minute}}})
	m.Apply(ProxyUpstream{Server: "mem", Session: "up-1"}, now)
	later := now.Add(time.Hour)
	m.Apply(ProxyUpstream{Server: "mem", Session: "up-2"}, later)
	for _, ev := range m.Apply(SessionLost{LogLine: LogLine{Server: "mem", Session: "up-1", Detail: "Session not found"}}, later) {
		if as[Loss](ev).Incident {
			t.Fatalf("the proxy's session's loss, read from the log, opened an incident: %+v", ev)
		}
	}
	for i := range proxyRemember {
		m.Apply(ProxyUpstream{Server: "mem", Session: fmt.Sprintf("more-%d", i)}, later.Add(time.Duration(i+1)*time.Second))
	}
	if n := len(m.servers["mem"].proxy.viaProxy); n > proxyRemember {
		t.Fatalf("%d sessions remembered, want at most %d", n, proxyRemember)
	}
	if _, ok := m.servers["mem"].proxy.viaProxy["up-2"]; ok {
		t.Fatal("the oldest is still remembered past the bound")
	}
}

// A session the proxy ended itself with DELETE (its host idle past the
// timeout) leaves the store after more than the timeout idle: it ended,
// by the proxy, and was not expired by the server (soak: session_expired
// for a session the truth says was deleted). One the proxy did not end
// still expires.
func TestSessionTheProxyReleasedIsNotAnExpiry(t *testing.T) {
	now := time.Date(2026, 12, 2, 8, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name     string
		released bool
		want     EventKind
	}{
		{"released by the proxy", true, EvSessionEnded},
		{"left to the server", false, EvSessionExpired},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := New(Config{HostName: "DSH", ClientName: "dsh-mcp-client", Servers: []ServerConfig{
				{Name: "mem", URL: "http://127.0.0.1:1/mcp", IdleTimeout: 2 * time.Second}}})
			m.Apply(ProxyUpstream{Server: "mem", Session: "up-1"}, now)
			m.Apply(StoreSnapshot{Server: "mem", Sessions: []StoreSession{
				{ID: "up-1", Client: "unpatched-agent", LastActivity: now, Created: now}}}, now)
			gone := now.Add(3 * time.Second)
			if tt.released {
				m.Apply(ProxyReleased{Server: "mem", Session: "up-1"}, gone.Add(-time.Millisecond))
			}
			evs := m.Apply(StoreSnapshot{Server: "mem"}, gone)
			if got := kinds(evs); !slices.Equal(got, []EventKind{tt.want}) {
				t.Fatalf("events %v (%+v); want %s", got, evs, tt.want)
			}
		})
	}
}

// How the proxy stood in for a server down at a host's start is one
// journal line of its kind, with the host, its client, when the server
// said what the host was attached from and how long a wait took; it opens
// no incident and changes no state. A kind that is not one of these says
// nothing.
func TestProxyAttachedIsJournaled(t *testing.T) {
	now := time.Date(2026, 12, 7, 10, 42, 0, 0, time.UTC)
	known := now.Add(-time.Hour)
	for _, tc := range []struct {
		kind  EventKind
		known time.Time
		took  time.Duration
		want  map[string]any
	}{
		{EvHostAttached, known, 0, map[string]any{"host": "Claude Code", "known": "2026-12-07T09:42:00Z"}},
		{EvHostWaiting, time.Time{}, 0, map[string]any{"host": "Claude Code"}},
		{EvHostCaughtUp, time.Time{}, 2 * time.Second, map[string]any{"host": "Claude Code", "took_ms": int64(2000)}},
		{EvCallNotUp, time.Time{}, 10 * time.Second, map[string]any{"host": "Claude Code", "took_ms": int64(10000)}},
		{EvSessionLost, time.Time{}, 0, nil},
	} {
		m := New(Config{HostName: "DSH", Servers: []ServerConfig{{Name: "mem", URL: "http://127.0.0.1:1/mcp", ProxyURL: "http://127.0.0.1:2/mcp"}}})
		evs := m.Apply(ProxyAttached{Server: "mem", Kind: tc.kind, Host: "Claude Code", Client: "claude-code", Known: tc.known, Took: tc.took, Detail: "d"}, now)
		if tc.want == nil {
			if len(evs) != 0 {
				t.Errorf("%s: %+v, want nothing", tc.kind, evs)
			}
			continue
		}
		if len(evs) != 1 || evs[0].Kind != tc.kind || evs[0].Server != "mem" || as[Opened](evs[0]).Client != "claude-code" ||
			fmt.Sprint(evs[0].Extra) != fmt.Sprint(tc.want) {
			t.Errorf("%s: %+v, want one event with client claude-code and %v", tc.kind, evs, tc.want)
		}
		if _, _, open := m.Incident("mem"); open {
			t.Errorf("%s opened an incident", tc.kind)
		}
	}
}
