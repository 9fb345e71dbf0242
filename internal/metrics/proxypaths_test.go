package metrics

import (
	"strings"
	"sync/atomic"
	"testing"
)

// The proxies' request counts are read at each scrape: by server, path
// and reason, with the server label bounded as everywhere, and two
// proxies under one label summed.
func TestProxyPaths(t *testing.T) {
	m := NewWith(&Options{Servers: []string{srv}})
	url := serveForTest(t, m)
	var fast atomic.Uint64
	fast.Store(10)
	m.WatchProxies(func() []ProxyPaths {
		return []ProxyPaths{
			{Server: srv, Fast: fast.Load(), General: map[string]uint64{"method": 2, "framing": 0}},
			{Server: "unlisted-a", Fast: 1, General: map[string]uint64{"method": 1}},
			{Server: "unlisted-b", Fast: 2},
		}
	})
	want := map[string]float64{
		`mcp_watchdog_proxy_requests_total{path="fast",reason="",server="nowledge-mem"}`:           10,
		`mcp_watchdog_proxy_requests_total{path="general",reason="method",server="nowledge-mem"}`:  2,
		`mcp_watchdog_proxy_requests_total{path="general",reason="framing",server="nowledge-mem"}`: 0,
		`mcp_watchdog_proxy_requests_total{path="fast",reason="",server="other"}`:                  3,
		`mcp_watchdog_proxy_requests_total{path="general",reason="method",server="other"}`:         1,
	}
	got := scrape(t, url)
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
	fast.Store(25) // counted by the proxy meanwhile: the next scrape reads it
	if got := scrape(t, url)[`mcp_watchdog_proxy_requests_total{path="fast",reason="",server="nowledge-mem"}`]; got != 25 {
		t.Errorf("after more requests the fast series is %v, want 25", got)
	}
	for k := range scrape(t, url) {
		if strings.Contains(k, "proxy_requests") && !strings.Contains(k, `server="nowledge-mem"`) && !strings.Contains(k, `server="other"`) {
			t.Errorf("unbounded server label: %s", k)
		}
	}
}
