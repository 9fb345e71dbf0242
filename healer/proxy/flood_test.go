package proxy_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/healer/proxy"
	"github.com/mcpwatchdog/watchdog/internal/demoserver"
)

// memNow is this process's heap and stacks in use after a collection, and
// its resident set: the figures docs/RELIABILITY.md reports.
type memNow struct{ heap, rss uint64 }

func measure(t testing.TB) memNow {
	t.Helper()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	m := memNow{heap: ms.HeapInuse + ms.StackInuse}
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return m // no procfs (macOS): the heap figure alone
	}
	for line := range strings.SplitSeq(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			m.rss = kb << 10
		}
	}
	return m
}

// per is the growth from m to later per one of n things, in bytes.
func (m memNow) per(later memNow, n int) (heap, rss float64) {
	return (float64(later.heap) - float64(m.heap)) / float64(n), (float64(later.rss) - float64(m.rss)) / float64(n)
}

// halfOpen connects to addr and sends the start of a request whose
// headers never end (slowloris); closed reports when the proxy closes it.
func halfOpen(t *testing.T, addr string, closed *atomic.Int64, wg *sync.WaitGroup) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatalf("connection %v", err)
	}
	if _, err := io.WriteString(c, "POST /mcp HTTP/1.1\r\nHost: "+addr+"\r\nX-Slow: "); err != nil {
		t.Fatal(err)
	}
	wg.Go(func() {
		_, _ = c.Read(make([]byte, 1)) // returns when either side closes
		closed.Add(1)
	})
	return c
}

// 1,000 half-open connections while a host keeps calling, each call on a
// fresh connection: every call succeeds, and the proxy holds at most
// MaxPending of them (it closes the oldest). The figure: memory per
// half-open connection held (cap above 1,000) and in all (default cap).
func TestSlowlorisWhileAHostCalls(t *testing.T) {
	const conns = 1000
	for _, tc := range []struct {
		name    string
		pending int // proxy.Options.MaxPending
	}{
		{"default cap", proxy.DefaultMaxPending},
		{"every one held", conns},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := startServer(t, demoserver.Options{})
			px := startProxy(t, proxy.Options{Upstream: srv.URL(), MaxPending: tc.pending, HeaderTimeout: time.Hour})
			id := rawSession(t, px.url)
			before := measure(t)
			var closed atomic.Int64
			var wg sync.WaitGroup
			open := make([]net.Conn, 0, conns+1)
			defer func() {
				for _, c := range open {
					c.Close()
				}
				wg.Wait()
			}()
			for i := range conns {
				open = append(open, halfOpen(t, px.addr, &closed, &wg))
				if i%100 == 0 {
					otherHostCalls(t, px.url, id, 1, true)
				}
			}
			evicted := int64(conns - tc.pending)
			if tc.pending == conns {
				// One more: its arrival closes the oldest, so the proxy has
				// taken every one before it (it takes them in order).
				open = append(open, halfOpen(t, px.addr, &closed, &wg))
				evicted = 1
			}
			waitFor(t, "the proxy to close the oldest half-open connections", func() bool { return closed.Load() >= evicted })
			after := measure(t)
			otherHostCalls(t, px.url, id, 10, true)
			// The first fresh host connection after the flood finds the
			// pending set full and makes room by closing one more; each
			// later one finds that room.
			if n := closed.Load(); n != evicted+1 {
				t.Errorf("the proxy closed %d half-open connections, want %d (it holds at most %d)", n, evicted+1, tc.pending)
			}
			client := clientEnds(t, conns)
			heap, rss := before.per(after, conns)
			t.Logf("figure: %d half-open connections, at most %d held: heap+stacks %+.0f B, RSS %+.0f B per connection opened, of which the test's own client ends %+.0f B and %+.0f B (%+.1f MiB heap, %+.1f MiB RSS for the proxy in all)",
				conns, tc.pending, heap, rss, client.heap, client.rss, (heap-client.heap)*conns/(1<<20), (rss-client.rss)*conns/(1<<20))
		})
	}
}

// clientEnds is what the test's own ends of n half-open connections cost
// (a socket and a reader goroutine each), against a listener that only
// accepts: subtracted from the proxy's figure.
func clientEnds(t *testing.T, n int) (per struct{ heap, rss float64 }) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var held []net.Conn
	accepted := make(chan struct{})
	go func() {
		defer close(accepted)
		for range n {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
		}
	}()
	before := measure(t)
	var closed atomic.Int64
	var wg sync.WaitGroup
	conns := make([]net.Conn, 0, n)
	for range n {
		conns = append(conns, halfOpen(t, ln.Addr().String(), &closed, &wg))
	}
	<-accepted
	after := measure(t)
	for _, c := range conns {
		c.Close()
	}
	wg.Wait()
	for _, c := range held {
		c.Close()
	}
	ln.Close()
	per.heap, per.rss = before.per(after, n)
	return per
}

// Huge or many request headers: 431 before any handler runs (nothing goes
// upstream), another host's calls go on meanwhile, and what one flooding
// connection costs stays within the header cap.
func TestHeaderFloodRefused(t *testing.T) {
	srv := startServer(t, demoserver.Options{})
	px := startProxy(t, proxy.Options{Upstream: srv.URL()})
	id := rawSession(t, px.url)
	for _, tc := range []struct {
		name    string
		headers string
	}{
		{"one huge header", "X-Huge: " + strings.Repeat("a", 1<<20) + "\r\n"},
		{"many headers", strings.Repeat("X-Many: b\r\n", 20000)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var wg sync.WaitGroup
			wg.Go(func() { otherHostCalls(t, px.url, id, 20, false) })
			status := flood(t, px.addr, tc.headers)
			wg.Wait()
			if status != http.StatusRequestHeaderFieldsTooLarge {
				t.Errorf("a flood of %d header bytes: %d, want 431", len(tc.headers), status)
			}
			// net/http reads at most MaxHeaderBytes + 4096 of a request's
			// headers before it refuses them: the bound per connection.
			t.Logf("figure: %d header bytes refused with %d; at most %d bytes read", len(tc.headers), status, proxy.DefaultMaxHeader+4096)
		})
	}
	if n := srv.Count(); n != 40 {
		t.Errorf("the tool ran %d times, want the other host's 40", n)
	}
}

// flood sends a request with headers and returns the proxy's status.
func flood(t *testing.T, addr, headers string) int {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	go func() { // the proxy answers before it has read all: write on
		_, _ = fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n%sContent-Length: 2\r\n\r\n{}", addr, headers)
	}()
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("no answer to the flood: %v", err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<10))
	return resp.StatusCode
}
