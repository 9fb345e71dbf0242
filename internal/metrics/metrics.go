package metrics

import (
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/mcpwatchdog/watchdog/internal/health"
)

const namespace = "mcp_watchdog"

// Results of the heals_total and keep_warm_total counters.
const (
	resultOK        = "ok"
	resultFailed    = "failed"
	resultRecovered = "recovered"
)

// healBuckets spans a quick client reconnect (tens of ms) to a slow host
// restart (minutes).
func healBuckets() []float64 {
	return []float64{0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300}
}

// Options bound the label values. A nil *Options means all zero values.
type Options struct {
	// Servers are the configured server names; any other server is
	// "other". Zero: any clean name, up to 32 distinct, is accepted.
	Servers []string
	// Clients are the client names session idleness may be labelled
	// with (normally the host's client_name). Zero: as for Servers.
	Clients []string
	// Strategies are the heal strategies, each counted under its name
	// (the daemon passes the healer's table); any other is "other".
	// Zero: as for Servers.
	Strategies []health.Strategy
	// Refused hears of each connection of another local user that Serve
	// closed unread (their uid; peer.Unknown when not found): metrics
	// carry no credential but say which servers exist. It must not block.
	// nil: each is logged.
	Refused func(uid int)
}

// Metrics holds the watchdog's metrics in a registry of its own. All
// methods are safe for concurrent use.
type Metrics struct {
	reg *prometheus.Registry

	servers, clients, strategies *labelSet
	refused                      func(uid int) // nil: logged

	sessionsLost    *prometheus.CounterVec
	sessionsExpired *prometheus.CounterVec
	keepWarm        *prometheus.CounterVec
	heals           *prometheus.CounterVec
	healDuration    *prometheus.HistogramVec
	legacyRejected  *prometheus.CounterVec
	legacyDropped   *prometheus.CounterVec
	attaches        *prometheus.CounterVec
	hostRestarts    prometheus.Counter
	sessionIdle     *prometheus.GaugeVec
	state           *stateCollector
	proxyPaths      *pathsCollector
	stdio           stdioCounters
}

// New returns metrics that accept any clean server, client and strategy
// name (see Options).
func New() *Metrics { return NewWith(nil) }

// NewWith returns metrics whose label values are bounded by opts.
func NewWith(opts *Options) *Metrics {
	if opts == nil {
		opts = &Options{}
	}
	strategies := make([]string, len(opts.Strategies))
	for i, s := range opts.Strategies {
		strategies[i] = string(s)
	}
	m := &Metrics{
		reg:        prometheus.NewRegistry(),
		servers:    newLabelSet(opts.Servers),
		clients:    newLabelSet(opts.Clients),
		strategies: newLabelSet(strategies),
		refused:    opts.Refused,
	}
	m.build()
	m.preset()
	return m
}

func (m *Metrics) build() {
	counter := func(name, help string, labels ...string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: name, Help: help}, labels)
	}
	m.sessionsLost = counter("sessions_lost_total", "Host sessions found lost (the server no longer knows them).", "server")
	m.sessionsExpired = counter("sessions_expired_total", "Sessions that expired after sitting idle past the server's timeout.", "server")
	m.keepWarm = counter("keep_warm_total", "Keep-warm pings of the host's session, by result.", "server", "result")
	m.heals = counter("heals_total", "Finished heals of a lost session, by strategy and result.", "server", "strategy", "result")
	m.legacyRejected = counter("legacy_header_rejections_total", "Requests refused because they carried a legacy session header.", "server")
	m.legacyDropped = counter("proxy_legacy_headers_dropped_total", "Legacy session headers the proxy dropped from a host's requests to a server without sessions.", "server")
	m.attaches = counter("proxy_attaches_total", "Hosts that started while their proxied server was down, by what the proxy did: "+
		"attached (from what the server last said), waiting (nothing known yet), caught_up (the server came up), not_up (a call waited in vain).", "server", "outcome")
	m.hostRestarts = prometheus.NewCounter(prometheus.CounterOpts{Namespace: namespace, Name: "host_restarts_total",
		Help: "Times the MCP host was seen restarted."})
	m.healDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: namespace, Name: "heal_duration_seconds",
		Help: "Time from a session's loss to its recovery.", Buckets: healBuckets()}, []string{"server", "strategy"})
	m.sessionIdle = prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: namespace, Name: "session_idle_seconds",
		Help: "How long the host client's current session has been idle."}, []string{"server", "client"})
	m.state = newStateCollector()
	m.proxyPaths = newPathsCollector(m.servers)
	m.reg.MustRegister(m.sessionsLost, m.sessionsExpired, m.keepWarm, m.heals, m.legacyRejected, m.legacyDropped, m.attaches,
		m.hostRestarts, m.healDuration, m.sessionIdle, m.state, m.proxyPaths)
	m.stdio = newStdioCounters()
	m.reg.MustRegister(m.stdio.collectors()...)
}

// preset creates the per-server series of configured servers at zero (and
// their state as unknown), so rates and alerts work from the first event.
func (m *Metrics) preset() {
	for _, s := range m.servers.members() {
		m.sessionsLost.WithLabelValues(s)
		m.sessionsExpired.WithLabelValues(s)
		m.keepWarm.WithLabelValues(s, resultOK)
		m.keepWarm.WithLabelValues(s, resultFailed)
		m.legacyRejected.WithLabelValues(s)
		m.legacyDropped.WithLabelValues(s)
		m.state.set(s, stateUnknown)
	}
}

// SetSessionIdle sets how long the host client's current session on
// server has been idle. Callers drop a server's old series with
// ResetSessionIdle when its current session changes or ends.
func (m *Metrics) SetSessionIdle(server, client string, idle time.Duration) {
	m.sessionIdle.WithLabelValues(m.servers.value(server), m.clients.value(client)).Set(max(idle, 0).Seconds())
}

// ResetSessionIdle removes every session idleness series of server.
func (m *Metrics) ResetSessionIdle(server string) {
	m.sessionIdle.DeletePartialMatch(prometheus.Labels{"server": m.servers.value(server)})
}

// SetServerState makes state the one current state of server (healthy,
// at_risk, healing, lost, down or unknown; anything else is unknown).
func (m *Metrics) SetServerState(server, state string) {
	m.state.set(m.servers.value(server), state)
}

// Handler serves the registry in the Prometheus exposition formats.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}
