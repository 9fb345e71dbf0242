package health_test

import (
	"fmt"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/health"
)

// The model is fed signals with the time they were seen and answers with
// the events to journal; it reads no clock and does no I/O. Here a host's
// session sits idle on a server that forgets sessions after an hour, until
// the server's store no longer has it. The first snapshot is a baseline.
func ExampleModel_Apply() {
	m := health.New(health.Config{HostName: "DSH", ClientName: "dsh-mcp-client",
		Servers: []health.ServerConfig{{Name: "mem", URL: "http://127.0.0.1:14242/mcp", IdleTimeout: time.Hour}}})
	t0 := time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)
	session := health.StoreSession{ID: "7f3a9c2e-51d4-4b8e-9a61-0c2f8e4d1b90", Client: "dsh-mcp-client", Created: t0, LastActivity: t0}
	show := func(evs []health.Event) {
		for _, ev := range evs {
			fmt.Printf("%s %s: %s\n", ev.Kind, ev.Server, ev.Detail)
		}
	}
	show(m.Apply(health.StoreSnapshot{Server: "mem", Sessions: []health.StoreSession{session}}, t0))
	show(m.Apply(health.StoreSnapshot{Server: "mem", Sessions: []health.StoreSession{session}}, t0.Add(time.Minute)))
	show(m.Tick(t0.Add(50 * time.Minute)))
	show(m.Apply(health.StoreSnapshot{Server: "mem", Sessions: []health.StoreSession{}}, t0.Add(61*time.Minute)))
	fmt.Println(m.Status(t0.Add(61 * time.Minute)).Servers[0].State)
	// Output:
	// session_at_risk mem: the host's session on mem has been idle 50m0s and expires in 10m0s
	// session_expired mem: session of dsh-mcp-client on mem expired after 1h1m0s idle (timeout 1h0m0s)
	// session_lost mem: the host's session on mem is gone from the server (idle 1h1m0s); its next call will fail
	// lost
}
