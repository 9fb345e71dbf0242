package metrics

import (
	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/stream"
)

// Count counts one journal event. Kinds without a metric (heal_started,
// session_new, ...) are ignored; TestEveryKindCountedOrListed keeps that
// list explicit. Of the event only its kind, server, Strategy and Took are
// read (the Strategy and Took of its family), and a stdio event's host;
// nothing else, in particular no session id, reaches a label.
func (m *Metrics) Count(ev health.Event) {
	if m.stdio.count(ev) {
		return
	}
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
		r, _ := ev.Facts.(health.Recovery)
		m.healed(ev.Server, r)
	case health.EvHealFailed:
		a, _ := ev.Facts.(health.Attempt)
		m.heals.WithLabelValues(m.servers.value(ev.Server), m.strategies.value(string(a.Strategy)), resultFailed).Inc()
	case health.EvLegacyHeaderRejected:
		m.legacyRejected.WithLabelValues(m.servers.value(ev.Server)).Inc()
	case health.EvHostRestarted:
		m.hostRestarts.Inc()
	case health.EvHostAttached, health.EvHostWaiting, health.EvHostCaughtUp, health.EvCallNotUp:
		m.attaches.WithLabelValues(m.servers.value(ev.Server), attachOutcome(ev.Kind)).Inc()
	}
}

// attachOutcome is the outcome label of an attach kind.
func attachOutcome(k health.EventKind) string {
	switch k {
	case health.EvHostAttached:
		return "attached"
	case health.EvHostWaiting:
		return "waiting"
	case health.EvHostCaughtUp:
		return "caught_up"
	}
	return "not_up"
}

// healed counts a recovery and, when the event says how long the loss
// lasted (a Took above zero), observes that duration. The strategy label
// is "unknown" when the event names none, "other" when it is not allowed.
func (m *Metrics) healed(server string, r health.Recovery) {
	s, strategy := m.servers.value(server), m.strategies.value(string(r.Strategy))
	m.heals.WithLabelValues(s, strategy, resultRecovered).Inc()
	if r.Took > 0 {
		m.healDuration.WithLabelValues(s, strategy).Observe(r.Took.Seconds())
	}
}

// LegacyHeaderDropped counts a legacy session header the proxy dropped
// on its way to a server without sessions: a refusal avoided.
func (m *Metrics) LegacyHeaderDropped(server string) {
	m.legacyDropped.WithLabelValues(m.servers.value(server)).Inc()
}

// Name names the metrics as a face of the daemon's stream.
func (m *Metrics) Name() string { return "metrics" }

// Take counts every event said (stream.Said), journaled or not.
func (m *Metrics) Take(p stream.Publication) {
	if said, ok := p.(stream.Said); ok {
		m.Count(said.Ev)
	}
}
