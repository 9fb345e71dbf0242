package metrics

import (
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/mcpwatchdog/watchdog/internal/health"
)

func TestCleanLabel(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"nowledge-mem", true},
		{"dsh-mcp-client", true},
		{"Claude Desktop", true},
		{"@deepseek-ai/dsh-mcp-client", true},
		{"mem.v2_local", true},
		{"", false},
		{"other", false},
		{"unknown", false},
		{strings.Repeat("a", 65), false},
		{"tab\there", false},
		{`quote"d`, false},
		{"naïve", false},
		{"3f9c2b1e-8d4a-4c6f-9e2b-7a1d5c3e9f00", false}, // UUID
		{"a3f59c2b1e8d4a4c6f9e2b7a1d5c3e9f", false},     // hex
		{"ZK4WQ7M2XH5N3JBRT6YV8PLC9D", false},           // Go SDK style base32
		{"server ab12cd34ef56ab78cd90", false},          // id inside a name
		{"abcdefghijklmnopqrstuvwxyzabcdefgh", false},   // very long run without digits
		{"a-very-long-server-name-for-prod", true},      // long, but no digits
		{"srv-2025", true},                              // short run with digits
	}
	for _, tc := range tests {
		if got := cleanLabel(tc.in); got != tc.want {
			t.Errorf("cleanLabel(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

// idLike matches the session id shapes the tests use, anywhere in a scrape.
var idLike = regexp.MustCompile(`[0-9a-fA-F]{8}-[0-9a-fA-F]{4}|[0-9a-f]{32}|[A-Z2-7]{26}`)

// TestNoSessionIDInScrape feeds session ids through every entry point, as
// server, client, strategy and field values, and finds none in a scrape.
func TestNoSessionIDInScrape(t *testing.T) {
	ids := []string{"3f9c2b1e-8d4a-4c6f-9e2b-7a1d5c3e9f00", "a3f59c2b1e8d4a4c6f9e2b7a1d5c3e9f", "ZK4WQ7M2XH5N3JBRT6YV8PLC9D"}
	m := New()
	for _, id := range ids {
		typed := event{Session: id, Extra: map[string]any{"session_id": id}}
		for _, kind := range []health.EventKind{"session_lost", "session_expired", "keep_warm", "keep_warm_failed", "heal_started",
			"recovered", "heal_failed", "legacy_header_rejected", "host_restarted", "session_new"} {
			typed.Kind = kind
			typed.Facts = withID(health.FactsOf(kind), id)
			typed.Server = srv
			m.Count(typed)
			typed.Server = id
			m.Count(typed)
		}
		m.SetSessionIdle(srv, id, time.Minute)
		m.SetSessionIdle(id, hostCli, time.Minute)
		m.SetServerState(id, "lost")
		m.SetServerState(srv, id)
	}
	raw := scrapeRaw(t, serveForTest(t, m))
	for _, id := range ids {
		if strings.Contains(raw, id) || strings.Contains(raw, id[:4]+"…") {
			t.Errorf("scrape contains session id %s", id)
		}
	}
	if loc := idLike.FindString(raw); loc != "" {
		t.Errorf("scrape contains id-looking %q", loc)
	}
	if !strings.Contains(raw, `mcp_watchdog_sessions_lost_total{server="other"} 3`) {
		t.Errorf("id-named servers not counted as other:\n%s", raw)
	}
	checkLabels(t, parse(t, raw))
}

// checkLabels asserts only the allowed label names occur and no value
// looks like an id.
func checkLabels(t *testing.T, fams map[string]*dto.MetricFamily) {
	t.Helper()
	allowed := map[string]bool{"server": true, "client": true, "strategy": true, "result": true, "state": true}
	for name, f := range fams {
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if !allowed[l.GetName()] {
					t.Errorf("%s has label %s", name, l.GetName())
				}
				if looksLikeID(l.GetValue()) {
					t.Errorf("%s has id-like %s=%q", name, l.GetName(), l.GetValue())
				}
			}
		}
	}
}

// TestConcurrentUse runs every entry point alongside scrapes, for -race.
func TestConcurrentUse(t *testing.T) {
	m := New()
	url := serveForTest(t, m)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 200 {
				m.Count(event{Kind: "recovered", Server: srv, Facts: health.Recovery{Strategy: StrategyHostRestart, Took: time.Duration(i) * time.Millisecond}})
				m.SetServerState(srv, serverStates()[(g+i)%6])
				m.SetSessionIdle(srv, hostCli, time.Duration(i)*time.Second)
				if i%50 == 0 {
					m.ResetSessionIdle(srv)
				}
			}
		})
	}
	wg.Go(func() {
		for range 5 {
			fams := parse(t, scrapeRaw(t, url))
			ones := 0
			for _, mm := range fams["mcp_watchdog_server_state"].GetMetric() {
				ones += int(mm.GetGauge().GetValue())
			}
			if ones > 1 {
				t.Errorf("%d server states at 1 in one scrape", ones)
			}
		}
	})
	wg.Wait()
	got := scrape(t, url)
	if v := got[`mcp_watchdog_heals_total{result="recovered",server="nowledge-mem",strategy="host_restart"}`]; v != 800 {
		t.Errorf("heals_total = %v, want 800", v)
	}
}

// withID is family with id in every string field and a took.
func withID(family health.Facts, id string) health.Facts {
	switch family.(type) {
	case health.Loss:
		return health.Loss{Client: id}
	case health.Recovery:
		return health.Recovery{Strategy: health.Strategy(id), Took: 10 * time.Millisecond, NewSession: id}
	case health.Attempt:
		return health.Attempt{Strategy: health.Strategy(id)}
	case health.Ping:
		return health.Ping{Took: 10 * time.Millisecond}
	case health.Opened:
		return health.Opened{Client: id}
	case health.Ended:
		return health.Ended{Client: id}
	}
	return family
}
