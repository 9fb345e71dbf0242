package metrics

import (
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/health"
)

// BenchmarkCount: one journal event into the metrics, the daemon's hot
// path (goal: well under a microsecond).
func BenchmarkCount(b *testing.B) {
	m := NewWith(&Options{Servers: []string{srv}})
	ev := event{Kind: "recovered", Server: srv, Facts: health.Recovery{Strategy: StrategyClientRecovery, Took: 1500 * time.Millisecond}}
	b.ReportAllocs()
	for b.Loop() {
		m.Count(ev)
	}
}
