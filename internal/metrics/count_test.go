package metrics

import (
	"strings"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/health"
)

type event = health.Event

const (
	srv     = "nowledge-mem"
	hostCli = "dsh-mcp-client"
	restart = "mcp_watchdog_host_restarts_total" // always present, no labels
)

// Strategies the tests allow: stand-ins for the healer's table, which the
// daemon passes (internal/daemon tests that every entry is counted).
const (
	StrategyReconnect      = health.StrategyReconnect
	StrategyClientRecovery = health.Strategy("client_recovery")
	StrategyHostRestart    = health.Strategy("host_restart")
)

// newFixed returns metrics that allow only the test strategies.
func newFixed() *Metrics {
	return NewWith(&Options{Strategies: []health.Strategy{StrategyReconnect, StrategyClientRecovery, StrategyHostRestart}})
}

func times(n int, ev event) []event {
	out := make([]event, n)
	for i := range out {
		out[i] = ev
	}
	return out
}

// TestCountKinds counts each kind and asserts the whole scrape: every
// series present, with its exact value, and nothing else.
// Long: a table of 13 cases.
func TestCountKinds(t *testing.T) {
	heals := func(strategy health.Strategy, result string) string {
		return `mcp_watchdog_heals_total{result="` + result + `",server="` + srv + `",strategy="` + string(strategy) + `"}`
	}
	dur := func(suffix string, strategy health.Strategy) string {
		return `mcp_watchdog_heal_duration_seconds_` + suffix + `{server="` + srv + `",strategy="` + string(strategy) + `"}`
	}
	tests := []struct {
		name   string
		events []event
		want   map[string]float64
	}{
		{"session_lost", times(2, event{Kind: "session_lost", Server: srv, Facts: health.Loss{Incident: true}}),
			map[string]float64{`mcp_watchdog_sessions_lost_total{server="nowledge-mem"}`: 2}},
		{"session_lost without server", []event{{Kind: "session_lost"}},
			map[string]float64{`mcp_watchdog_sessions_lost_total{server="unknown"}`: 1}},
		{"session_expired", []event{{Kind: "session_expired", Server: srv}},
			map[string]float64{`mcp_watchdog_sessions_expired_total{server="nowledge-mem"}`: 1}},
		{"keep_warm ok and failed", append(times(3, event{Kind: "keep_warm", Server: srv, Facts: health.Ping{Took: 4 * time.Millisecond}}),
			event{Kind: "keep_warm_failed", Server: srv}),
			map[string]float64{
				`mcp_watchdog_keep_warm_total{result="ok",server="nowledge-mem"}`:     3,
				`mcp_watchdog_keep_warm_total{result="failed",server="nowledge-mem"}`: 1,
			}},
		{"heal_started counts nothing", []event{{Kind: "heal_started", Server: srv, Facts: health.Attempt{Strategy: StrategyClientRecovery}}},
			map[string]float64{}},
		{"recovered with strategy and took", []event{
			{Kind: "recovered", Server: srv, Facts: health.Recovery{Strategy: StrategyClientRecovery, Took: 1500 * time.Millisecond}},
			{Kind: "recovered", Server: srv, Facts: health.Recovery{Strategy: StrategyClientRecovery, Took: 250 * time.Millisecond}},
		}, map[string]float64{
			heals(StrategyClientRecovery, "recovered"): 2,
			dur("count", StrategyClientRecovery):       2,
			dur("sum", StrategyClientRecovery):         1.75,
		}},
		{"recovered with and without a strategy", []event{
			{Kind: "recovered", Server: srv, Facts: health.Recovery{Took: 30000 * time.Millisecond}},
			{Kind: "recovered", Server: srv, Facts: health.Recovery{Strategy: StrategyReconnect, Took: 500 * time.Millisecond}},
		}, map[string]float64{
			heals("unknown", "recovered"):         1,
			heals(StrategyReconnect, "recovered"): 1,
			dur("count", "unknown"):               1,
			dur("sum", "unknown"):                 30,
			dur("count", StrategyReconnect):       1,
			dur("sum", StrategyReconnect):         0.5,
		}},
		{"recovered with an unlisted or odd strategy", []event{
			{Kind: "recovered", Server: srv, Facts: health.Recovery{Strategy: "reboot-the-world", Took: 2 * time.Second}},
			{Kind: "recovered", Server: srv, Facts: health.Recovery{Strategy: "a\"b\n"}},
		}, map[string]float64{
			heals("other", "recovered"): 2,
			dur("count", "other"):       1,
			dur("sum", "other"):         2,
		}},
		{"recovered with unusable took_ms", []event{
			{Kind: "recovered", Server: srv, Facts: health.Recovery{Strategy: StrategyHostRestart, Took: -5 * time.Millisecond}},
			{Kind: "recovered", Server: srv, Facts: health.Recovery{Strategy: StrategyHostRestart}},
			{Kind: "recovered", Server: srv},
		}, map[string]float64{
			heals(StrategyHostRestart, "recovered"): 2,
			heals("unknown", "recovered"):           1,
		}},
		{"heal_failed", []event{
			{Kind: "heal_failed", Server: srv, Facts: health.Attempt{Strategy: StrategyHostRestart}},
			{Kind: "heal_failed", Server: srv, Facts: health.Attempt{Strategy: ""}},
		}, map[string]float64{
			heals(StrategyHostRestart, "failed"): 1,
			heals("unknown", "failed"):           1,
		}},
		{"legacy_header_rejected", times(4, event{Kind: "legacy_header_rejected", Server: srv}),
			map[string]float64{`mcp_watchdog_legacy_header_rejections_total{server="nowledge-mem"}`: 4}},
		{"host_restarted", times(2, event{Kind: "host_restarted", Extra: map[string]any{"pid": 4242}}),
			map[string]float64{restart: 2}},
		{"kinds without a metric", []event{
			{Kind: "started"}, {Kind: "session_new", Server: srv, Extra: map[string]any{"session": "ab12…9f3e"}},
			{Kind: "session_at_risk", Server: srv, Facts: health.Risk{Idle: 100 * time.Second}}, {Kind: "no_such_kind", Server: srv},
		}, map[string]float64{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := newFixed()
			for _, ev := range tc.events {
				m.Count(ev)
			}
			want := map[string]float64{restart: 0}
			for k, v := range tc.want {
				want[k] = v
			}
			if d := diff(scrape(t, serveForTest(t, m)), want); len(d) > 0 {
				t.Errorf("scrape differs:\n%s", strings.Join(d, "\n"))
			}
		})
	}
}

// TestHealDurationBuckets checks the duration lands in the right buckets,
// in seconds.
func TestHealDurationBuckets(t *testing.T) {
	m := New()
	m.Count(event{Kind: "recovered", Server: srv, Facts: health.Recovery{Strategy: StrategyHostRestart, Took: 1500 * time.Millisecond}})
	fams := parse(t, scrapeRaw(t, serveForTest(t, m)))
	h := fams["mcp_watchdog_heal_duration_seconds"].GetMetric()[0].GetHistogram()
	if h.GetSampleCount() != 1 || h.GetSampleSum() != 1.5 {
		t.Fatalf("count %d sum %v, want 1 and 1.5", h.GetSampleCount(), h.GetSampleSum())
	}
	for _, b := range h.GetBucket() {
		want := uint64(0)
		if b.GetUpperBound() >= 1.5 {
			want = 1
		}
		if b.GetCumulativeCount() != want {
			t.Errorf("bucket le=%v holds %d, want %d", b.GetUpperBound(), b.GetCumulativeCount(), want)
		}
	}
}

// TestConfiguredServers: configured servers start at zero and unknown
// state; anything else is "other".
func TestConfiguredServers(t *testing.T) {
	m := NewWith(&Options{Servers: []string{srv}, Clients: []string{hostCli}})
	m.Count(event{Kind: "session_lost", Server: "intruder"})
	m.SetSessionIdle("intruder", "someone-else", time.Minute)
	want := map[string]float64{
		restart: 0,
		`mcp_watchdog_sessions_lost_total{server="nowledge-mem"}`:                0,
		`mcp_watchdog_sessions_lost_total{server="other"}`:                       1,
		`mcp_watchdog_sessions_expired_total{server="nowledge-mem"}`:             0,
		`mcp_watchdog_keep_warm_total{result="ok",server="nowledge-mem"}`:        0,
		`mcp_watchdog_keep_warm_total{result="failed",server="nowledge-mem"}`:    0,
		`mcp_watchdog_legacy_header_rejections_total{server="nowledge-mem"}`:     0,
		`mcp_watchdog_proxy_legacy_headers_dropped_total{server="nowledge-mem"}`: 0,
		`mcp_watchdog_session_idle_seconds{client="other",server="other"}`:       60,
		`mcp_watchdog_server_state{server="nowledge-mem",state="healthy"}`:       0,
		`mcp_watchdog_server_state{server="nowledge-mem",state="at_risk"}`:       0,
		`mcp_watchdog_server_state{server="nowledge-mem",state="healing"}`:       0,
		`mcp_watchdog_server_state{server="nowledge-mem",state="lost"}`:          0,
		`mcp_watchdog_server_state{server="nowledge-mem",state="down"}`:          0,
		`mcp_watchdog_server_state{server="nowledge-mem",state="unknown"}`:       1,
	}
	if d := diff(scrape(t, serveForTest(t, m)), want); len(d) > 0 {
		t.Errorf("scrape differs:\n%s", strings.Join(d, "\n"))
	}
}

// TestCustomStrategies: Options.Strategies replaces the default set.
func TestCustomStrategies(t *testing.T) {
	m := NewWith(&Options{Strategies: []health.Strategy{"replay_initialize"}})
	m.Count(event{Kind: "heal_failed", Server: srv, Facts: health.Attempt{Strategy: "replay_initialize"}})
	m.Count(event{Kind: "heal_failed", Server: srv, Facts: health.Attempt{Strategy: StrategyHostRestart}})
	got := scrape(t, serveForTest(t, m))
	for k, want := range map[string]float64{
		`mcp_watchdog_heals_total{result="failed",server="nowledge-mem",strategy="replay_initialize"}`: 1,
		`mcp_watchdog_heals_total{result="failed",server="nowledge-mem",strategy="other"}`:             1,
	} {
		if got[k] != want {
			t.Errorf("%s = %v, want %v", k, got[k], want)
		}
	}
}
