package metrics

import "testing"

// BenchmarkObserve: one journal event into the metrics, the daemon's hot
// path (goal: well under a microsecond, no allocations beyond the map).
func BenchmarkObserve(b *testing.B) {
	m := NewWith(&Options{Servers: []string{srv}})
	fields := map[string]any{"strategy": StrategyClientRecovery, "took_ms": int64(1500)}
	b.ReportAllocs()
	for b.Loop() {
		m.Observe("recovered", srv, fields)
	}
}
