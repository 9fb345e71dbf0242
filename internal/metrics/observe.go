package metrics

import (
	"encoding/json"
	"math"
	"time"
)

// Journal event kinds that feed metrics (contract: event journal).
const (
	kindSessionLost          = "session_lost"
	kindSessionExpired       = "session_expired"
	kindKeepWarm             = "keep_warm"
	kindKeepWarmFailed       = "keep_warm_failed"
	kindRecovered            = "recovered"
	kindHealFailed           = "heal_failed"
	kindLegacyHeaderRejected = "legacy_header_rejected"
	kindHostRestarted        = "host_restarted"
)

// Observe counts one journal event. Kinds without a metric (heal_started,
// session_new, ...) are ignored. Of fields only "strategy" (heals) and
// "took_ms" (heal duration) are read; nothing else, in particular no
// session id, reaches a label.
func (m *Metrics) Observe(kind, server string, fields map[string]any) {
	switch kind {
	case kindSessionLost:
		m.sessionsLost.WithLabelValues(m.servers.value(server)).Inc()
	case kindSessionExpired:
		m.sessionsExpired.WithLabelValues(m.servers.value(server)).Inc()
	case kindKeepWarm:
		m.keepWarm.WithLabelValues(m.servers.value(server), resultOK).Inc()
	case kindKeepWarmFailed:
		m.keepWarm.WithLabelValues(m.servers.value(server), resultFailed).Inc()
	case kindRecovered:
		m.healed(server, fields)
	case kindHealFailed:
		m.heals.WithLabelValues(m.servers.value(server), m.strategy(fields), resultFailed).Inc()
	case kindLegacyHeaderRejected:
		m.legacyRejected.WithLabelValues(m.servers.value(server)).Inc()
	case kindHostRestarted:
		m.hostRestarts.Inc()
	}
}

// healed counts a recovery and, when the event says how long the loss
// lasted, observes that duration.
func (m *Metrics) healed(server string, fields map[string]any) {
	s, strategy := m.servers.value(server), m.strategy(fields)
	m.heals.WithLabelValues(s, strategy, resultRecovered).Inc()
	if secs, ok := tookSeconds(fields["took_ms"]); ok {
		m.healDuration.WithLabelValues(s, strategy).Observe(secs)
	}
}

// strategy reads fields["strategy"]: "unknown" when absent or empty,
// "other" when not a string or not an allowed strategy.
func (m *Metrics) strategy(fields map[string]any) string {
	v, ok := fields["strategy"]
	if !ok || v == nil {
		return valueUnknown
	}
	s, ok := v.(string)
	if !ok {
		return valueOther
	}
	return m.strategies.value(s)
}

// tookSeconds converts a took_ms field as the health model (int64) or a
// decoded journal line (float64, json.Number) carries it. A time.Duration
// is taken as a duration. Negative, NaN and infinite values are refused.
func tookSeconds(v any) (float64, bool) {
	var ms float64
	switch x := v.(type) {
	case time.Duration:
		ms = float64(x) / float64(time.Millisecond)
	case int:
		ms = float64(x)
	case int32:
		ms = float64(x)
	case int64:
		ms = float64(x)
	case uint:
		ms = float64(x)
	case uint32:
		ms = float64(x)
	case uint64:
		ms = float64(x)
	case float32:
		ms = float64(x)
	case float64:
		ms = x
	case json.Number:
		f, err := x.Float64()
		if err != nil {
			return 0, false
		}
		ms = f
	default:
		return 0, false
	}
	if ms < 0 || math.IsNaN(ms) || math.IsInf(ms, 0) {
		return 0, false
	}
	return ms / 1000, true
}
