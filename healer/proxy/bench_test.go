package proxy_test

import (
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/healer/proxy"
	"github.com/mcpwatchdog/watchdog/internal/demoserver"
)

// BenchmarkProxyAddedLatency: the same tool call, straight to the Go SDK
// server and through the proxy, alternated so both meet the same machine;
// reports each path's p50 and p99 and what the proxy adds (make bench).
func BenchmarkProxyAddedLatency(b *testing.B) {
	const calls = 1000
	srv, err := demoserver.Start(b.Context(), demoserver.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	px := startProxy(b, proxy.Options{Upstream: srv.URL()})
	direct, proxied := rawSessionB(b, srv.URL()), rawSessionB(b, px.url)
	for b.Loop() {
		var d, p []time.Duration
		for range calls {
			d = append(d, timedCall(b, srv.URL(), direct))
			p = append(p, timedCall(b, px.url, proxied))
		}
		slices.Sort(d)
		slices.Sort(p)
		q := func(s []time.Duration, f float64) float64 {
			return float64(s[int(f*float64(len(s)-1))].Microseconds()) / 1000
		}
		b.ReportMetric(q(d, 0.5), "direct-p50-ms")
		b.ReportMetric(q(d, 0.99), "direct-p99-ms")
		b.ReportMetric(q(p, 0.5), "proxy-p50-ms")
		b.ReportMetric(q(p, 0.99), "proxy-p99-ms")
		b.ReportMetric(q(p, 0.5)-q(d, 0.5), "added-p50-ms")
		b.ReportMetric(q(p, 0.99)-q(d, 0.99), "added-p99-ms")
		var through time.Duration
		for _, x := range p {
			through += x
		}
		b.ReportMetric(float64(calls)/through.Seconds(), "proxy-calls/s")
	}
}

func rawSessionB(b *testing.B, u string) string {
	b.Helper()
	resp := send(b, u, "", initBody)
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	id := resp.Header.Get("Mcp-Session-Id")
	if id == "" {
		b.Fatalf("no session from %s: %d", u, resp.StatusCode)
	}
	timedPost(b, u, id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return id
}

func timedCall(b *testing.B, u, session string) time.Duration {
	return timedPost(b, u, session, countCall)
}

// timedPost is one POST, from sending to the end of its answer.
func timedPost(b *testing.B, u, session, body string) time.Duration {
	start := time.Now()
	resp := send(b, u, session, body)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		b.Fatalf("%s answered %d", u, resp.StatusCode)
	}
	return time.Since(start)
}

func send(b *testing.B, u, session, body string) *http.Response {
	req, _ := http.NewRequest(http.MethodPost, u, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	return resp
}
