package proxy

import (
	"net/http"
	"slices"
	"sync/atomic"
)

// Paths is how a proxy has served the requests of its hosts so far: on
// the fast path, or on the general path and why (see the reasons in
// fasthead.go). The daemon exports it as the metric
// mcp_watchdog_proxy_requests_total; benchmarks read it to see that the
// calls they time took the fast path.
type Paths struct {
	Fast    uint64
	General map[string]uint64 // by reason; every reason is there, 0 or not
}

// pathCounts counts requests by path.
type pathCounts struct {
	fast    atomic.Uint64
	general []atomic.Uint64 // by index in generalReasons()
}

func newPathCounts() *pathCounts {
	return &pathCounts{general: make([]atomic.Uint64, len(generalReasons()))}
}

func (c *pathCounts) fastOne() { c.fast.Add(1) }

// generalOne counts a request the general path served.
func (c *pathCounts) generalOne(r *http.Request) {
	if i := slices.Index(generalReasons(), generalWhy(r)); i >= 0 {
		c.general[i].Add(1)
	}
}

// Paths is how the proxy has served its hosts' requests so far.
func (p *Proxy) Paths() Paths {
	out := Paths{Fast: p.paths.fast.Load(), General: map[string]uint64{}}
	for i, why := range generalReasons() {
		out.General[why] = p.paths.general[i].Load()
	}
	return out
}
