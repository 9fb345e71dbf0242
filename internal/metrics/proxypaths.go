package metrics

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// ProxyPaths is how one proxy has served its hosts' requests so far: on
// its fast path, or on the general path and why (healer/proxy's Paths).
type ProxyPaths struct {
	Server  string
	Fast    uint64
	General map[string]uint64 // by reason
}

// Path label values of mcp_watchdog_proxy_requests_total.
const (
	pathFast    = "fast"
	pathGeneral = "general"
)

// WatchProxies makes every scrape read the proxies' request counts from f
// (mcp_watchdog_proxy_requests_total{server, path, reason}): counted by
// the proxies themselves, with no cost per request here. nil: none.
func (m *Metrics) WatchProxies(f func() []ProxyPaths) { m.proxyPaths.watch(f) }

// pathsCollector exposes the proxies' request counts, read at scrape time.
type pathsCollector struct {
	desc    *prometheus.Desc
	servers *labelSet
	reasons *labelSet

	mu   sync.Mutex
	read func() []ProxyPaths
}

func newPathsCollector(servers *labelSet) *pathsCollector {
	return &pathsCollector{
		desc: prometheus.NewDesc(namespace+"_proxy_requests_total",
			"Requests the proxy served, by path: fast (its own HTTP/1.1 forwarding) or general (net/http), and why a request took the general path.",
			[]string{"server", "path", "reason"}, nil),
		servers: servers,
		reasons: newLabelSet(nil),
	}
}

func (c *pathsCollector) watch(f func() []ProxyPaths) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.read = f
}

// Describe implements prometheus.Collector.
func (c *pathsCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

// Collect implements prometheus.Collector. Two proxies whose servers fall
// under one label value ("other") are summed.
func (c *pathsCollector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	read := c.read
	c.mu.Unlock()
	if read == nil {
		return
	}
	type key struct{ server, path, reason string }
	sums := map[key]uint64{}
	for _, p := range read() {
		server := c.servers.value(p.Server)
		sums[key{server, pathFast, ""}] += p.Fast
		for why, n := range p.General {
			sums[key{server, pathGeneral, c.reasons.value(why)}] += n
		}
	}
	for k, n := range sums {
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.CounterValue, float64(n), k.server, k.path, k.reason)
	}
}
