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
// (state file on, as the daemon runs it) against the fast server, in
// process: -cpuprofile shows where the proxy's time goes. The figures of
// record are make bench's (the real binary, daemonbench -mode proxyload).
func BenchmarkProxyLoad(b *testing.B) {
	for _, c := range []int{1, 8, 64} {
		b.Run(fmt.Sprintf("C=%d", c), func(b *testing.B) {
			srv, err := loadgen.StartFast(b.Context())
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
		})
	}
}
