package daemon

import (
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/config"
	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/monitor/beacon"
)

// The soak caught a restarted host's sessions confused with its killed
// predecessor's: the old beacon, not yet swept, was the freshest, and the
// old host's session was pinged. Once the host process is known, only its
// own beacon speaks for it.
func TestHostBeaconIsTheRunningHostsOnly(t *testing.T) {
	t.Parallel()
	d := &daemon{model: health.New(health.Config{HostName: "DSH", ClientName: "c"})}
	old := beacon.Client{PID: 100, Updated: time.Now()}
	if c, ok := d.hostBeacon([]beacon.Client{old}); !ok || c.PID != 100 {
		t.Fatalf("no host found yet: %+v %v, want the freshest beacon", c, ok)
	}
	d.model.Apply(health.Signal{Kind: health.SigHostUp, PID: 200, Started: time.Now()}, time.Now())
	if c, ok := d.hostBeacon([]beacon.Client{old}); ok {
		t.Fatalf("host 200 runs: took %+v, another process's beacon", c)
	}
	mine := beacon.Client{PID: 200, Updated: time.Now().Add(-time.Minute)}
	if c, ok := d.hostBeacon([]beacon.Client{old, mine}); !ok || c.PID != 200 {
		t.Fatalf("got %+v %v, want the running host's own beacon", c, ok)
	}
}

// The soak caught the patched host's direct session taken for one behind
// the proxy: a proxied entry for the same server matched the beacon by
// URL, and the daemon pinged, lost and "recovered" the host's session
// there as the proxy's. What the host holds through a proxy is the
// proxy's id, which the server never issued: a proxied entry knows its
// sessions from the proxy alone.
func TestBeaconNeverSpeaksForAProxiedEntry(t *testing.T) {
	t.Parallel()
	const url = "http://127.0.0.1:14242/mcp"
	d := &daemon{cfg: config.Config{Servers: []config.Server{
		{Name: "mem", URL: url},
		{Name: "mem-proxy", URL: url, ProxyListen: "127.0.0.1:14243"},
	}}}
	direct := beacon.Client{Servers: []beacon.Server{{Name: "nowledge", URL: url, SessionID: "direct-1", State: beacon.Connected}}}
	viaProxy := beacon.Client{Servers: []beacon.Server{{Name: "mem-proxy", URL: "http://127.0.0.1:14243/mcp", SessionID: "proxy-id", State: beacon.Connected}}}
	if held := d.heldOf(direct); held["mem"].Session != "direct-1" || len(held) != 1 {
		t.Fatalf("direct: %+v, want the direct session on mem only", held)
	}
	if held := d.heldOf(viaProxy); len(held) != 0 {
		t.Fatalf("through the proxy: %+v, want nothing held (the proxy knows its sessions)", held)
	}
}
