package daemon

import (
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/config"
	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/journal"
	"github.com/mcpwatchdog/watchdog/monitor/beacon"
	"github.com/mcpwatchdog/watchdog/monitor/proc"
)

// The soak caught a restarted host's sessions confused with its killed
// predecessor's: the old beacon, not yet swept, was the freshest, and the
// old host's session was pinged. Once the host process is known, only its
// own beacon speaks for it.
func TestHostBeaconIsTheRunningHostsOnly(t *testing.T) {
	t.Parallel()
	d := &daemon{watched: []*hostWatch{{main: true, model: health.New(health.Config{HostName: "DSH", ClientName: "c"})}}}
	old := beacon.Client{PID: 100, Updated: time.Now()}
	if c, ok := d.hostBeacon([]beacon.Client{old}); !ok || c.PID != 100 {
		t.Fatalf("no host found yet: %+v %v, want the freshest beacon", c, ok)
	}
	d.mainHost().model.Apply(health.HostUp{PID: 200, Started: time.Now()}, time.Now())
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

// The soak caught a restarted host's session pinged as "inferred" while
// its beacon named it: the new host's beacon was read before the process
// watcher reported the restart, so it was no known host's and spoke for
// no one until the client next rewrote it. The report of the new host
// now gives the model the last beacons again.
func TestRestartedHostsBeaconSpeaksOnceTheHostIsKnown(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	j, err := journal.Open(dir, journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	var o Options
	o.fill()
	d := newDaemon(config.Default(), dir, "", o, j)
	ctx := t.Context()
	now := time.Now()
	up := func(pid int32) health.Observation {
		return health.HostUp{PID: pid, Started: now.Add(-time.Duration(pid) * time.Second)}
	}
	d.handle(ctx, signalIn{o: up(100)})
	newHost := beacon.Client{PID: 200, Updated: now, Servers: []beacon.Server{{Name: "nowledge-mem", URL: "http://127.0.0.1:14242/mcp", SessionID: "s-200", State: beacon.Connected}}}
	d.handle(ctx, beaconsIn{beacon.Update{Clients: []beacon.Client{newHost}}})
	if src := d.mainHost().model.Status(now).Servers[0].Source; src != health.SourceInferred {
		t.Fatalf("host 100 still known: source %q; the new writer's beacon must not speak yet", src)
	}
	d.handle(ctx, signalIn{o: up(200)})
	if src := d.mainHost().model.Status(now).Servers[0].Source; src != health.SourceBeacon {
		t.Fatalf("host 200 known: source %q, want its beacon's word", src)
	}
}

// The watcher is offered the newest beacon writer, not the first it left
// untaken: a killed host's pid kept in the slot had it find the new host
// only at its next scan (soak run 30).
func TestKnownHostOfferKeepsTheNewest(t *testing.T) {
	t.Parallel()
	ch := make(chan proc.Host, 1)
	offerKnown(ch, proc.Host{PID: 100})
	offerKnown(ch, proc.Host{PID: 200})
	if h := <-ch; h.PID != 200 {
		t.Fatalf("the watcher was offered pid %d, want the newest, 200", h.PID)
	}
	select {
	case h := <-ch:
		t.Fatalf("a second offer was left: pid %d", h.PID)
	default:
	}
}
