package proxyproc

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"testing"

	"github.com/mcpwatchdog/watchdog/healer/proxy"
	"github.com/mcpwatchdog/watchdog/internal/proxywire"
)

// While no daemon is linked the proxy process keeps what its proxies see,
// at most hubBacklog lines, dropping the oldest; a daemon that links gets
// the proxies' state first, then the kept lines in order, then what comes.
// No sighting waits for a daemon.
func TestHubKeepsSightingsForTheNextDaemon(t *testing.T) {
	t.Parallel()
	h := newHub(slog.New(slog.DiscardHandler), nil, func(string) {})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const extra = 5
	for i := range hubBacklog + extra {
		h.Sighting(ctx, proxy.Sighting{Kind: proxy.EvSession, Server: "mem", Upstream: fmt.Sprint(i)})
	}
	h.Warning(ctx, "mem", "a warning for the journal")
	if h.dropped != extra+1 {
		t.Fatalf("%d lines dropped, want %d", h.dropped, extra+1)
	}
	daemonEnd, hubEnd := net.Pipe()
	done := make(chan struct{})
	go func() { defer close(done); h.serveLink(ctx, hubEnd) }()
	r := proxywire.NewReader(daemonEnd)
	first, err := r.Read()
	if err != nil || first.Proxies == nil {
		t.Fatalf("the first line: %+v, %v; want the proxies' state", first, err)
	}
	for i := extra + 1; i < hubBacklog+extra; i++ {
		m, err := r.Read()
		if err != nil || m.Sighting == nil || m.Sighting.Upstream != fmt.Sprint(i) {
			t.Fatalf("kept line for %d: %+v, %v", i, m, err)
		}
	}
	if m, err := r.Read(); err != nil || m.Warning == nil {
		t.Fatalf("the kept warning: %+v, %v", m, err)
	}
	h.Sighting(ctx, proxy.Sighting{Kind: proxy.EvRecovered, Server: "mem", Upstream: "new", OldUpstream: "old"})
	if m, err := r.Read(); err != nil || m.Sighting == nil || m.Sighting.Kind != "recovered" {
		t.Fatalf("a live line: %+v, %v", m, err)
	}
	_ = daemonEnd.Close()
	<-done
	h.Sighting(ctx, proxy.Sighting{Kind: proxy.EvSession, Server: "mem", Upstream: "after"})
	if len(h.backlog) != 1 {
		t.Errorf("after the daemon left, %d lines kept, want 1", len(h.backlog))
	}
}
