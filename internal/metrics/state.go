package metrics

import (
	"maps"
	"slices"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

const stateUnknown = "unknown"

// serverStates are the contract's server states, in exposition order.
func serverStates() []string {
	return []string{"healthy", "at_risk", "healing", "lost", "down", stateUnknown}
}

// stateCollector exposes mcp_watchdog_server_state. It keeps one state per
// server and emits all of a server's series under one lock, so a scrape
// never sees two states at 1 or none.
type stateCollector struct {
	desc   *prometheus.Desc
	states []string

	mu      sync.Mutex
	current map[string]string // server label value → state
}

func newStateCollector() *stateCollector {
	return &stateCollector{
		desc: prometheus.NewDesc(namespace+"_server_state",
			"1 for the server's current state, 0 for the others.", []string{"server", "state"}, nil),
		states:  serverStates(),
		current: make(map[string]string),
	}
}

func (c *stateCollector) set(server, state string) {
	if !slices.Contains(c.states, state) {
		state = stateUnknown
	}
	c.mu.Lock()
	c.current[server] = state
	c.mu.Unlock()
}

// Describe implements prometheus.Collector.
func (c *stateCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

// Collect implements prometheus.Collector.
func (c *stateCollector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	snapshot := maps.Clone(c.current)
	c.mu.Unlock()
	for server, cur := range snapshot {
		for _, st := range c.states {
			v := 0.0
			if st == cur {
				v = 1
			}
			ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, v, server, st)
		}
	}
}
