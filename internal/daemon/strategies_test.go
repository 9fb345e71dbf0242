package daemon

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/healer"
	"github.com/mcpwatchdog/watchdog/internal/config"
	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/metrics"
)

// TestMetricsCountEveryStrategy ranges over the healer's table: the
// daemon's metrics count a recovery and a failure of every strategy under
// the strategy's own name, never as "other". A strategy added to the table
// is counted with no other change; a name outside it is "other", so it is
// the table that makes a name count.
func TestMetricsCountEveryStrategy(t *testing.T) {
	t.Parallel()
	m := newMetrics(config.Config{Hosts: []config.Host{{ClientName: "dsh-mcp-client"}}, Servers: []config.Server{{Name: "mem"}}}, nil)
	for _, s := range healer.Strategies() {
		m.Count(health.Event{Kind: health.EvRecovered, Server: "mem", Facts: health.Recovery{Strategy: s.Name, Took: time.Second}})
		m.Count(health.Event{Kind: health.EvHealFailed, Server: "mem", Facts: health.Attempt{Strategy: s.Name}})
	}
	m.Count(health.Event{Kind: health.EvHealFailed, Server: "mem", Facts: health.Attempt{Strategy: "not_in_the_table"}})
	scrape := scrapeMetrics(t, m)
	for _, s := range healer.Strategies() {
		for _, result := range []string{"recovered", "failed"} {
			series := `mcp_watchdog_heals_total{result="` + result + `",server="mem",strategy="` + string(s.Name) + `"} 1`
			if !strings.Contains(scrape, series) {
				t.Errorf("%s: no %s in the scrape:\n%s", s.Name, series, scrape)
			}
		}
	}
	if other := `mcp_watchdog_heals_total{result="failed",server="mem",strategy="other"} 1`; !strings.Contains(scrape, other) {
		t.Errorf("a strategy outside the table is not counted as other:\n%s", scrape)
	}
}

func scrapeMetrics(t *testing.T, m *metrics.Metrics) string {
	t.Helper()
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("GET", "/metrics", nil)
	req.Header.Set("Accept", "text/plain; version=0.0.4")
	m.Handler().ServeHTTP(rec, req)
	body, err := io.ReadAll(rec.Result().Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(body)
}
