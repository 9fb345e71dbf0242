package daemon

import (
	"testing"
	"time"

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
