package metrics

import "github.com/mcpwatchdog/watchdog/internal/health"

// Count counts one journal event. Kinds without a metric (heal_started,
// session_new, ...) are ignored; TestEveryKindCountedOrListed keeps that
// list explicit. Of the event only its kind, server, Strategy and Took are
// read; nothing else, in particular no session id, reaches a label.
func (m *Metrics) Count(ev health.Event) {
	switch ev.Kind {
	case health.EvSessionLost:
		m.sessionsLost.WithLabelValues(m.servers.value(ev.Server)).Inc()
	case health.EvSessionExpired:
		m.sessionsExpired.WithLabelValues(m.servers.value(ev.Server)).Inc()
	case health.EvKeepWarm:
		m.keepWarm.WithLabelValues(m.servers.value(ev.Server), resultOK).Inc()
	case health.EvKeepWarmFailed:
		m.keepWarm.WithLabelValues(m.servers.value(ev.Server), resultFailed).Inc()
	case health.EvRecovered:
		m.healed(ev)
	case health.EvHealFailed:
		m.heals.WithLabelValues(m.servers.value(ev.Server), m.strategies.value(string(ev.Strategy)), resultFailed).Inc()
	case health.EvLegacyHeaderRejected:
		m.legacyRejected.WithLabelValues(m.servers.value(ev.Server)).Inc()
	case health.EvHostRestarted:
		m.hostRestarts.Inc()
	}
}

// healed counts a recovery and, when the event says how long the loss
// lasted (a Took above zero), observes that duration. The strategy label
// is "unknown" when the event names none, "other" when it is not allowed.
func (m *Metrics) healed(ev health.Event) {
	s, strategy := m.servers.value(ev.Server), m.strategies.value(string(ev.Strategy))
	m.heals.WithLabelValues(s, strategy, resultRecovered).Inc()
	if ev.Took > 0 {
		m.healDuration.WithLabelValues(s, strategy).Observe(ev.Took.Seconds())
	}
}

// LegacyHeaderDropped counts a legacy session header the proxy dropped
// on its way to a server without sessions: a refusal avoided.
func (m *Metrics) LegacyHeaderDropped(server string) {
	m.legacyDropped.WithLabelValues(m.servers.value(server)).Inc()
}
