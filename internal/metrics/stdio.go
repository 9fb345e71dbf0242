package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/mcpwatchdog/watchdog/internal/health"
)

// stdioCounters are the counters of what stdio supervisors (watchdog
// stdio) report, by host and server: no config names these servers, so
// both labels are open sets, bounded like any unconfigured label.
type stdioCounters struct {
	hosts, servers *labelSet
	by             map[health.EventKind]*prometheus.CounterVec
}

func newStdioCounters() stdioCounters {
	counter := func(name, help string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: name, Help: help}, []string{"host", "server"})
	}
	return stdioCounters{hosts: newLabelSet(nil), servers: newLabelSet(nil), by: map[health.EventKind]*prometheus.CounterVec{
		health.EvStdioExited:     counter("stdio_exits_total", "Times a stdio server died while its host was connected."),
		health.EvStdioRestarted:  counter("stdio_restarts_total", "Times the watchdog started a dead stdio server again."),
		health.EvStdioCallFailed: counter("stdio_failed_calls_total", "Host calls in flight when a stdio server died, answered with an error."),
		health.EvStdioGaveUp:     counter("stdio_gave_up_total", "Times a stdio server kept crashing and the watchdog stopped restarting it."),
		health.EvStdioHung:       counter("stdio_hangs_total", "Times a stdio server left a request and a ping unanswered."),
	}}
}

func (c stdioCounters) collectors() []prometheus.Collector {
	out := make([]prometheus.Collector, 0, len(c.by))
	for _, k := range health.EventKinds() { // a fixed order
		if v, ok := c.by[k]; ok {
			out = append(out, v)
		}
	}
	return out
}

// count counts ev when it is a stdio event with a counter; false when not.
func (c stdioCounters) count(ev health.Event) bool {
	v, ok := c.by[ev.Kind]
	if !ok {
		return false
	}
	host, _ := ev.Extra["host"].(string)
	v.WithLabelValues(c.hosts.value(host), c.servers.value(ev.Server)).Inc()
	return true
}
