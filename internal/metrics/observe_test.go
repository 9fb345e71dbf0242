package metrics

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

type event struct {
	kind, server string
	fields       map[string]any
}

const (
	srv     = "nowledge-mem"
	hostCli = "dsh-mcp-client"
	restart = "mcp_watchdog_host_restarts_total" // always present, no labels
)

func times(n int, ev event) []event {
	out := make([]event, n)
	for i := range out {
		out[i] = ev
	}
	return out
}

// TestObserveKinds observes each kind and asserts the whole scrape: every
// series present, with its exact value, and nothing else.
// Long: a table of 13 cases.
func TestObserveKinds(t *testing.T) {
	heals := func(strategy, result string) string {
		return `mcp_watchdog_heals_total{result="` + result + `",server="` + srv + `",strategy="` + strategy + `"}`
	}
	dur := func(suffix, strategy string) string {
		return `mcp_watchdog_heal_duration_seconds_` + suffix + `{server="` + srv + `",strategy="` + strategy + `"}`
	}
	tests := []struct {
		name   string
		events []event
		want   map[string]float64
	}{
		{"session_lost", times(2, event{"session_lost", srv, map[string]any{"incident": true}}),
			map[string]float64{`mcp_watchdog_sessions_lost_total{server="nowledge-mem"}`: 2}},
		{"session_lost without server", []event{{"session_lost", "", nil}},
			map[string]float64{`mcp_watchdog_sessions_lost_total{server="unknown"}`: 1}},
		{"session_expired", []event{{"session_expired", srv, nil}},
			map[string]float64{`mcp_watchdog_sessions_expired_total{server="nowledge-mem"}`: 1}},
		{"keep_warm ok and failed", append(times(3, event{"keep_warm", srv, map[string]any{"took_ms": int64(4)}}),
			event{"keep_warm_failed", srv, nil}),
			map[string]float64{
				`mcp_watchdog_keep_warm_total{result="ok",server="nowledge-mem"}`:     3,
				`mcp_watchdog_keep_warm_total{result="failed",server="nowledge-mem"}`: 1,
			}},
		{"heal_started counts nothing", []event{{"heal_started", srv, map[string]any{"strategy": StrategyClientRecovery}}},
			map[string]float64{}},
		{"recovered with strategy and int64 took_ms", []event{
			{"recovered", srv, map[string]any{"strategy": StrategyClientRecovery, "took_ms": int64(1500)}},
			{"recovered", srv, map[string]any{"strategy": StrategyClientRecovery, "took_ms": int64(250)}},
		}, map[string]float64{
			heals(StrategyClientRecovery, "recovered"): 2,
			dur("count", StrategyClientRecovery):       2,
			dur("sum", StrategyClientRecovery):         1.75,
		}},
		{"recovered from a decoded journal line", []event{
			{"recovered", srv, map[string]any{"took_ms": float64(30000)}},
			{"recovered", srv, map[string]any{"strategy": StrategyReconnect, "took_ms": json.Number("500")}},
		}, map[string]float64{
			heals("unknown", "recovered"):         1,
			heals(StrategyReconnect, "recovered"): 1,
			dur("count", "unknown"):               1,
			dur("sum", "unknown"):                 30,
			dur("count", StrategyReconnect):       1,
			dur("sum", StrategyReconnect):         0.5,
		}},
		{"recovered with an unlisted or odd strategy", []event{
			{"recovered", srv, map[string]any{"strategy": "reboot-the-world", "took_ms": 2 * time.Second}},
			{"recovered", srv, map[string]any{"strategy": 42}},
		}, map[string]float64{
			heals("other", "recovered"): 2,
			dur("count", "other"):       1,
			dur("sum", "other"):         2,
		}},
		{"recovered with unusable took_ms", []event{
			{"recovered", srv, map[string]any{"strategy": StrategyHostRestart, "took_ms": int64(-5)}},
			{"recovered", srv, map[string]any{"strategy": StrategyHostRestart, "took_ms": "1500"}},
			{"recovered", srv, nil},
		}, map[string]float64{
			heals(StrategyHostRestart, "recovered"): 2,
			heals("unknown", "recovered"):           1,
		}},
		{"heal_failed", []event{
			{"heal_failed", srv, map[string]any{"strategy": StrategyHostRestart}},
			{"heal_failed", srv, map[string]any{"strategy": ""}},
		}, map[string]float64{
			heals(StrategyHostRestart, "failed"): 1,
			heals("unknown", "failed"):           1,
		}},
		{"legacy_header_rejected", times(4, event{"legacy_header_rejected", srv, nil}),
			map[string]float64{`mcp_watchdog_legacy_header_rejections_total{server="nowledge-mem"}`: 4}},
		{"host_restarted", times(2, event{"host_restarted", "", map[string]any{"pid": 4242}}),
			map[string]float64{restart: 2}},
		{"kinds without a metric", []event{
			{"started", "", nil}, {"session_new", srv, map[string]any{"session": "ab12…9f3e"}},
			{"session_at_risk", srv, map[string]any{"idle_seconds": 100}}, {"no_such_kind", srv, nil},
		}, map[string]float64{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := New()
			for _, ev := range tc.events {
				m.Observe(ev.kind, ev.server, ev.fields)
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
	m.Observe("recovered", srv, map[string]any{"strategy": StrategyHostRestart, "took_ms": int64(1500)})
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
	m.Observe("session_lost", "intruder", nil)
	m.SetSessionIdle("intruder", "someone-else", time.Minute)
	want := map[string]float64{
		restart: 0,
		`mcp_watchdog_sessions_lost_total{server="nowledge-mem"}`:             0,
		`mcp_watchdog_sessions_lost_total{server="other"}`:                    1,
		`mcp_watchdog_sessions_expired_total{server="nowledge-mem"}`:          0,
		`mcp_watchdog_keep_warm_total{result="ok",server="nowledge-mem"}`:     0,
		`mcp_watchdog_keep_warm_total{result="failed",server="nowledge-mem"}`: 0,
		`mcp_watchdog_legacy_header_rejections_total{server="nowledge-mem"}`:  0,
		`mcp_watchdog_session_idle_seconds{client="other",server="other"}`:    60,
		`mcp_watchdog_server_state{server="nowledge-mem",state="healthy"}`:    0,
		`mcp_watchdog_server_state{server="nowledge-mem",state="at_risk"}`:    0,
		`mcp_watchdog_server_state{server="nowledge-mem",state="healing"}`:    0,
		`mcp_watchdog_server_state{server="nowledge-mem",state="lost"}`:       0,
		`mcp_watchdog_server_state{server="nowledge-mem",state="down"}`:       0,
		`mcp_watchdog_server_state{server="nowledge-mem",state="unknown"}`:    1,
	}
	if d := diff(scrape(t, serveForTest(t, m)), want); len(d) > 0 {
		t.Errorf("scrape differs:\n%s", strings.Join(d, "\n"))
	}
}

// TestCustomStrategies: Options.Strategies replaces the default set.
func TestCustomStrategies(t *testing.T) {
	m := NewWith(&Options{Strategies: []string{"replay_initialize"}})
	m.Observe("heal_failed", srv, map[string]any{"strategy": "replay_initialize"})
	m.Observe("heal_failed", srv, map[string]any{"strategy": StrategyHostRestart})
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
