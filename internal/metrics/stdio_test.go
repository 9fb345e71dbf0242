package metrics

import (
	"strings"
	"testing"

	"github.com/mcpwatchdog/watchdog/internal/health"
)

// Stdio events count per host and server, which no config names: each
// kind under its own counter, a server with a configured name's label set
// not in the way.
func TestStdioCountsPerHostAndServer(t *testing.T) {
	t.Parallel()
	m := NewWith(&Options{Servers: []string{srv}})
	oc := map[string]any{"host": "opencode"}
	evs := []health.Event{
		{Kind: health.EvStdioExited, Server: "filesystem", Extra: oc},
		{Kind: health.EvStdioCallFailed, Server: "filesystem", Extra: oc},
		{Kind: health.EvStdioRestarted, Server: "filesystem", Extra: oc},
		{Kind: health.EvStdioExited, Server: "filesystem", Extra: oc},
		{Kind: health.EvStdioExited, Server: "filesystem", Extra: map[string]any{"host": "Cursor"}},
		{Kind: health.EvStdioGaveUp, Server: "git"},
		{Kind: health.EvStdioHung, Server: "git", Extra: oc},
		{Kind: health.EvStdioChanged, Server: "git", Extra: oc},
	}
	for _, ev := range evs {
		m.Count(ev)
	}
	got := gathered(t, m)
	want := map[string]float64{
		`mcp_watchdog_stdio_exits_total{host="opencode",server="filesystem"}`:        2,
		`mcp_watchdog_stdio_exits_total{host="Cursor",server="filesystem"}`:          1,
		`mcp_watchdog_stdio_failed_calls_total{host="opencode",server="filesystem"}`: 1,
		`mcp_watchdog_stdio_restarts_total{host="opencode",server="filesystem"}`:     1,
		`mcp_watchdog_stdio_gave_up_total{host="unknown",server="git"}`:              1,
		`mcp_watchdog_stdio_hangs_total{host="opencode",server="git"}`:               1,
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
	n := 0
	for k := range got {
		if strings.HasPrefix(k, "mcp_watchdog_stdio_") {
			n++
		}
	}
	if n != len(want) {
		t.Errorf("%d stdio series, want %d: %v", n, len(want), got)
	}
}
