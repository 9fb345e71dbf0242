package proxy_test

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/healer/proxy"
	"github.com/mcpwatchdog/watchdog/internal/testbed/bench/loadgen"
)

// BenchmarkProxyLoad: C sessions calling echo in a loop through the proxy
// (state file on, as the daemon runs it) against each server, in
// process: -cpuprofile shows where the proxy's time goes. The figures of
// record are make bench's (the real binary beside nginx and HAProxy,
// daemonbench -mode proxycompare).
func BenchmarkProxyLoad(b *testing.B) {
	for _, name := range []string{"mcp-go", "go-sdk"} {
		for _, c := range []int{1, 8, 64} {
			b.Run(fmt.Sprintf("%s/C=%d", name, c), func(b *testing.B) { proxyLoad(b, name, c) })
		}
	}
}

// proxyLoad is one server and concurrency of BenchmarkProxyLoad.
func proxyLoad(b *testing.B, name string, c int) {
	srv, err := loadgen.Start(b.Context(), name)
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	px := startProxy(b, proxy.Options{Upstream: srv.URL(), StateFile: filepath.Join(b.TempDir(), "proxy.json")})
	ss, err := loadgen.Open(b.Context(), loadgen.Client(c), px.url, c, c)
	if err != nil {
		b.Fatal(err)
	}
	defer ss.Close(b.Context())
	before := srv.Accepted()
	for b.Loop() {
		r, err := ss.Run(b.Context(), 2*time.Second)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(r.PerSecond(), "calls/s")
		b.ReportMetric(float64(srv.Accepted()-before)*1000/float64(r.Calls), "upstream-conns/1000calls")
	}
}
