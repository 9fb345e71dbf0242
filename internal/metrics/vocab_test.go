package metrics

import (
	"maps"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/mcpwatchdog/watchdog/internal/health"
)

// notCounted are the kinds Count deliberately counts nothing for, each
// with its reason. A new kind must be counted by Count or listed here.
func notCounted() map[health.EventKind]string {
	const (
		life     = "the watchdog's own life, not a session's"
		gauge    = "state the server_state and session_idle gauges show, set from the model"
		progress = "a step inside an incident; heals_total counts how it ends"
		news     = "information without a count worth alerting on"
	)
	return map[health.EventKind]string{
		health.EvStarted: life, health.EvStopped: life, health.EvWoke: life, health.EvWarning: life,
		health.EvPatchApplied: life, health.EvPatchReverted: life, health.EvNotified: life,
		health.EvHostAdopted: life, health.EvHostReleased: life,
		health.EvSessionNew: gauge, health.EvSessionAtRisk: gauge, health.EvServerUp: gauge, health.EvServerDown: gauge,
		health.EvServerMode: gauge, health.EvHostUp: gauge, health.EvHostDown: gauge,
		health.EvHealStarted:  progress,
		health.EvSessionEnded: news, health.EvTimeoutLearned: news, health.EvStdioChanged: news,
	}
}

// TestEveryKindCountedOrListed observes one event of every kind in the
// vocabulary: each either changes a series or is listed in notCounted, and
// none listed there changes one. A kind added to health cannot be missed
// by the metrics unnoticed.
func TestEveryKindCountedOrListed(t *testing.T) {
	t.Parallel()
	skip := notCounted()
	for _, kind := range health.EventKinds() {
		m := New()
		before := gathered(t, m)
		m.Count(health.Event{Kind: kind, Server: srv, Facts: filled(health.FactsOf(kind))})
		changed := !maps.Equal(before, gathered(t, m))
		_, listed := skip[kind]
		switch {
		case !changed && !listed:
			t.Errorf("%s: Count counts nothing and notCounted does not list it: count it or list it with a reason", kind)
		case changed && listed:
			t.Errorf("%s: listed in notCounted, but Count counts it", kind)
		}
	}
	for kind := range skip {
		if !kind.Known() {
			t.Errorf("notCounted lists %s, which is not in the vocabulary", kind)
		}
	}
}

func gathered(t *testing.T, m *Metrics) map[string]float64 {
	t.Helper()
	fams, err := m.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	byName := make(map[string]*dto.MetricFamily, len(fams))
	for _, f := range fams {
		byName[f.GetName()] = f
	}
	return flatten(byName)
}

// filled is family with every field a count could read set.
func filled(family health.Facts) health.Facts {
	switch family.(type) {
	case health.Loss:
		return health.Loss{Incident: true, Client: hostCli}
	case health.Recovery:
		return health.Recovery{Strategy: health.StrategyReconnect, Took: time.Second}
	case health.Attempt:
		return health.Attempt{Strategy: health.StrategyReconnect}
	case health.Ping:
		return health.Ping{Took: time.Second}
	case health.Opened:
		return health.Opened{Client: hostCli}
	case health.Ended:
		return health.Ended{Client: hostCli, Idle: time.Second}
	}
	return family
}
