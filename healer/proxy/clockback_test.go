package proxy_test

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwatchdog/watchdog/healer/proxy"
)

// A wall clock set back leaves the stamps of the last pings in its future.
// They must not read as "pinged a moment ago" until real time catches up:
// meanwhile the server's idle timeout ends the session the proxy keeps
// for a host that is still there (soak: an upstream session expired 11 s
// after a clock jump went back, the jump's length).
func TestKeepWarmSurvivesAClockSetBack(t *testing.T) {
	onTransports(t, keepWarmSurvivesAClockSetBack)
}

func keepWarmSurvivesAClockSetBack(t *testing.T, tr transport) {
	const idle = 600 * time.Millisecond
	server := mcp.NewServer(&mcp.Implementation{Name: "clock", Version: "1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "count"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, struct{}, error) {
		return &mcp.CallToolResult{}, struct{}{}, nil
	})
	up, pings := countingUpstream(t, server, &mcp.StreamableHTTPOptions{SessionTimeout: idle})
	var skew atomic.Int64
	now := func() time.Time { return time.Now().Add(time.Duration(skew.Load())) }
	px := tr.start(t, proxy.Options{Upstream: up.URL, IdleTimeout: idle, KeepWarm: true, Now: now})
	id := rawSession(t, px.url)
	if o := <-getStream(t, px.url, id); o.err != nil || o.resp.StatusCode != http.StatusOK {
		t.Fatalf("the host's GET stream: %v %v", o.err, o.resp)
	}

	skew.Store(int64(5 * time.Second)) // ahead: the next ping is stamped 5 s on
	before := pings.Load()
	waitFor(t, "a ping on the clock ahead", func() bool { return pings.Load() > before })
	skew.Store(0) // and back
	before = pings.Load()
	waitFor(t, "two pings after the clock went back", func() bool { return pings.Load() > before+1 })

	if resp := callCount(t, px.url, id); resp.StatusCode != http.StatusOK {
		t.Errorf("the call after the clock went back: %d", resp.StatusCode)
	}
	if n, m := len(px.of(proxy.EvRecovered)), len(px.of(proxy.EvUpstream)); n+m != 0 {
		t.Errorf("%d recoveries and %d new upstream sessions: the kept session expired while its pings waited for the clock", n, m)
	}
	tr.served(t, px)
}
