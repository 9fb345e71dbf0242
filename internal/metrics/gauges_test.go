package metrics

import (
	"strings"
	"testing"
	"time"
)

func stateSeries(server, current string) map[string]float64 {
	out := make(map[string]float64)
	for _, st := range serverStates() {
		v := 0.0
		if st == current {
			v = 1
		}
		out[`mcp_watchdog_server_state{server="`+server+`",state="`+st+`"}`] = v
	}
	return out
}

func TestSetServerState(t *testing.T) {
	tests := []struct {
		name   string
		states []string // set in order
		want   string   // the one state at 1
	}{
		{"healthy", []string{"healthy"}, "healthy"},
		{"at risk then healing", []string{"at_risk", "healing"}, "healing"},
		{"lost then down", []string{"lost", "down"}, "down"},
		{"not a state", []string{"healthy", "exploded"}, "unknown"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := New()
			for _, st := range tc.states {
				m.SetServerState(srv, st)
			}
			want := stateSeries(srv, tc.want)
			want[restart] = 0
			if d := diff(scrape(t, serveForTest(t, m)), want); len(d) > 0 {
				t.Errorf("scrape differs:\n%s", strings.Join(d, "\n"))
			}
		})
	}
}

func TestSessionIdle(t *testing.T) {
	m := New()
	url := serveForTest(t, m)
	m.SetSessionIdle(srv, hostCli, 90*time.Second)
	m.SetSessionIdle("other-server", hostCli, 1500*time.Millisecond)
	m.SetSessionIdle("clock-skew", hostCli, -time.Second)
	want := map[string]float64{
		restart: 0,
		`mcp_watchdog_session_idle_seconds{client="dsh-mcp-client",server="nowledge-mem"}`: 90,
		`mcp_watchdog_session_idle_seconds{client="dsh-mcp-client",server="other-server"}`: 1.5,
		`mcp_watchdog_session_idle_seconds{client="dsh-mcp-client",server="clock-skew"}`:   0,
	}
	if d := diff(scrape(t, url), want); len(d) > 0 {
		t.Fatalf("after set:\n%s", strings.Join(d, "\n"))
	}
	m.ResetSessionIdle(srv)
	m.ResetSessionIdle("clock-skew")
	delete(want, `mcp_watchdog_session_idle_seconds{client="dsh-mcp-client",server="nowledge-mem"}`)
	delete(want, `mcp_watchdog_session_idle_seconds{client="dsh-mcp-client",server="clock-skew"}`)
	if d := diff(scrape(t, url), want); len(d) > 0 {
		t.Fatalf("after reset:\n%s", strings.Join(d, "\n"))
	}
}

// TestOpenServerCap: with no configured servers, distinct names past the
// cap all count as "other".
func TestOpenServerCap(t *testing.T) {
	m := New()
	const n = maxOpenValues + 10
	for i := range n {
		m.Count(event{Kind: "session_lost", Server: "server-" + string(rune('a'+i/26)) + string(rune('a'+i%26))})
	}
	got := scrape(t, serveForTest(t, m))
	series := 0
	for k := range got {
		if strings.HasPrefix(k, "mcp_watchdog_sessions_lost_total{") {
			series++
		}
	}
	if series != maxOpenValues+1 {
		t.Errorf("%d series, want %d named plus other", series, maxOpenValues)
	}
	if v := got[`mcp_watchdog_sessions_lost_total{server="other"}`]; v != n-maxOpenValues {
		t.Errorf(`server="other" = %v, want %d`, v, n-maxOpenValues)
	}
}
