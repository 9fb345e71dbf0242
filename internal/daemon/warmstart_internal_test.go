package daemon

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/config"
	"github.com/mcpwatchdog/watchdog/internal/demoserver"
	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/journal"
)

// warmIdle is the real server's idle timeout here: the start pings every
// second, half of it, which leaves a busy machine a second of slack.
const warmIdle = 2 * time.Second

// A start busy for longer than the server's idle timeout (a 4 MiB journal
// read back under -race on two loaded cores took 3.2 s against a 3 s
// server: issue 31) keeps the beacon's session warm all along, not for
// one idle period; and a host that leaves meanwhile is let go. Nothing is
// slowed down artificially: the start simply does not hand over, and the
// test waits for each ping's answer, as the loop would get it.
func TestWarmThroughStart(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		hostLeaves bool
	}{
		{"a start slower than the idle timeout keeps the session", false},
		{"a host that leaves meanwhile is let go", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			warmThroughStartCase(t, tt.hostLeaves)
		})
	}
}

// warmThroughStartCase holds a start that never hands over, and waits for
// each ping answer; a host that leaves removes its beacon after the first.
func warmThroughStartCase(t *testing.T, hostLeaves bool) {
	t.Helper()
	ended := make(chan demoserver.Event, 4)
	srv, err := demoserver.Start(t.Context(), demoserver.Options{IdleTimeout: warmIdle, OnEvent: func(e demoserver.Event) {
		if e.Kind == demoserver.EventEnd {
			select {
			case ended <- e:
			default: // OnEvent must not block; the first end is what counts
			}
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	cs, err := demoserver.Connect(t.Context(), srv.URL(), "dsh-mcp-client")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	home := t.TempDir()
	beaconFile := writeHeldBeacon(t, home, srv.URL(), cs.ID())
	d := warmingDaemon(t, srv.URL(), home)

	handover := d.warmThroughStart(t.Context())
	defer handover()
	if sig := nextAnswer(t, d); sig.Outcome != health.OutcomeAlive {
		t.Fatalf("the start's first ping: %v %s", sig.Outcome, sig.Detail)
	}
	if hostLeaves {
		if err := os.Remove(beaconFile); err != nil {
			t.Fatal(err)
		}
		select {
		case e := <-ended:
			if e.ID != cs.ID() || e.Reason != demoserver.ReasonIdleTimeout {
				t.Fatalf("the server ended %v, want the host's session idle", e.Reason)
			}
		case <-time.After(5 * warmIdle):
			t.Fatal("the session never expired: the start kept pinging for a host that left")
		}
		return
	}
	// Three more answers span 1.5 idle timeouts after the first ping.
	for i := range 3 {
		if sig := nextAnswer(t, d); sig.Outcome != health.OutcomeAlive || sig.Session != cs.ID() {
			t.Fatalf("ping %d of the start: %v %s", i+2, sig.Outcome, sig.Detail)
		}
	}
	select {
	case e := <-ended:
		t.Errorf("the server ended the session (%v) while the start kept it warm", e.Reason)
	default:
	}
}

// warmingDaemon is a daemon as Serve has it just before its slow work: a
// keep-warm server at url, its beacons under home, its pinger built.
func warmingDaemon(t *testing.T, url, home string) *daemon {
	t.Helper()
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "config.toml")
	body := fmt.Sprintf("[host]\nclient_name = \"dsh-mcp-client\"\n[[server]]\nname = \"mem\"\nurl = %q\nidle_timeout = %q\nkeep_warm = true\n",
		url, warmIdle.String())
	if err := os.WriteFile(cfgPath, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(dir, "state")
	if err := os.Mkdir(state, 0o700); err != nil {
		t.Fatal(err)
	}
	j, err := journal.Open(state, journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = j.Close() })
	opts := Options{Home: home}
	opts.fill()
	d := newDaemon(cfg, state, "", opts, j)
	ctx, cancel := context.WithCancel(context.Background())
	pinger, _ := d.newPinger(ctx)
	d.pings.pinger = pinger
	t.Cleanup(func() { cancel(); pinger.Wait() })
	return d
}

// nextAnswer is the next ping answer the pinger handed to the loop.
func nextAnswer(t *testing.T, d *daemon) health.KeepWarmAnswered {
	t.Helper()
	select {
	case it := <-d.reports.queue:
		in, ok := it.(signalIn)
		warm, isWarm := in.o.(health.KeepWarmAnswered)
		if !ok || !isWarm {
			t.Fatalf("the loop got %+v, want a keep-warm answer", it)
		}
		return warm
	case <-time.After(4 * warmIdle):
		t.Fatal("no further ping while the start was busy")
	}
	return health.KeepWarmAnswered{}
}

// writeHeldBeacon writes the beacon the patched client writes while it
// holds session on url; its writer is this process, which is alive.
func writeHeldBeacon(t *testing.T, home, url, session string) string {
	t.Helper()
	dir := filepath.Join(home, ".dsh", "mcp-watchdog", "clients")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC().Format(time.RFC3339Nano)
	b, err := json.Marshal(map[string]any{"version": 1, "pid": os.Getpid(), "updated": now, "servers": []map[string]any{{
		"name": "mem", "url": url, "session_id": session, "state": "connected",
		"connected_since": now, "last_request": now, "updated": now}}})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, fmt.Sprintf("%d.json", os.Getpid()))
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
