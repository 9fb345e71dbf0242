package daemon_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/daemon"
	"github.com/mcpwatchdog/watchdog/internal/demoserver"
	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/journal"
	"github.com/mcpwatchdog/watchdog/internal/testbed/daemontest"
)

// Soak run 12 lost a kept-warm session to a daemon restart: killed 1.5 s
// after its last ping on a 3 s server, the daemon came back 0.6 s later
// and first read 4 MiB of journal back, looked for the host and read the
// beacons; the session expired before its first ping. A restarted daemon
// now pings the session a live host's beacon names before anything slow.
func TestRestartPingsTheBeaconsSessionBeforeReadingTheJournal(t *testing.T) {
	t.Parallel()
	token := standInToken(t)
	host := startStandInHost(t, token)
	srv, cfg, state := daemontest.KeepWarmSetup(t, true, token)
	fillJournal(t, state, 4<<20) // what a long run leaves to read back
	ctx := context.Background()
	cs, err := demoserver.Connect(ctx, srv.URL(), daemontest.HostClient())
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	home := t.TempDir()
	writeBeacon(t, home, host.Process.Pid, srv.URL(), cs.ID())
	time.Sleep(1500 * time.Millisecond) // half the idle timeout is left, as in run 12

	startDaemonOpts(t, cfg, state, daemon.Options{Home: home})
	// The model took the beacon before the loop started: ready, it
	// already judges the host's session by the host's word.
	if src := serverSource(status(t, state), "mem"); src != "beacon" {
		t.Errorf("status at readiness says the host's session is known from %q; the beacon was there to read", src)
	}
	time.Sleep(3 * time.Second) // past the session's expiry, had nothing pinged it
	for _, e := range srv.Ended() {
		if e.ID == cs.ID() {
			t.Fatalf("the server ended the host's session %s after the daemon started: it was not pinged in time", e.Ended.Format(time.StampMilli))
		}
	}
	if _, err := cs.CallTool(ctx, toolCall("echo")); err != nil {
		t.Fatalf("the host's call failed: %v", err)
	}
	if evs := daemontest.Journal(t, state, "session_expired", "session_lost", "keep_warm_failed"); len(evs) != 0 {
		t.Fatalf("the kept-warm session was reported gone: %v", evs)
	}
	pings := 0
	for _, ev := range daemontest.Journal(t, state, "keep_warm") {
		if ev.Str("session") != daemontest.MaskedID(cs.ID()) {
			continue
		}
		pings++
		// The start's pings took the session from the beacon before the
		// model read it: their records say so (soak: 86 "inferred").
		if src := ev.Str("source"); src != "beacon" {
			t.Errorf("keep_warm at %s says its session came from %q; the beacon named it", ev.Str("time"), src)
		}
	}
	if pings == 0 {
		t.Fatal("no keep_warm journaled for the ping that kept the session")
	}
}

// fillJournal writes keep_warm events of another session into stateDir's
// journal until it holds size bytes, then rotates it: the start reads the
// rotated file back as it reads the live one, while the test's own look
// at the live journal stays quick.
func fillJournal(t *testing.T, stateDir string, size int64) {
	t.Helper()
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		t.Fatal(err)
	}
	j, err := journal.Open(stateDir, journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	live := filepath.Join(stateDir, journal.FileName)
	defer func() {
		if err := j.Close(); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(live, live+".1"); err != nil {
			t.Fatal(err)
		}
	}()
	at := time.Now().Add(-time.Hour)
	for i := 0; ; i++ {
		if i%1000 == 0 {
			if fi, err := os.Stat(live); err == nil && fi.Size() >= size {
				return
			}
		}
		ev := health.Event{Time: at.Add(time.Duration(i) * time.Millisecond), Kind: health.EvKeepWarm, Server: "mem",
			Session: "0000…0000", Facts: health.Ping{Took: 2 * time.Millisecond}, Detail: "pinged the host's session on mem (2ms)"}
		if err := j.Write(ev); err != nil {
			t.Fatal(err)
		}
	}
}

// writeBeacon writes the beacon the patched client of process pid writes
// while it holds session on the server at url.
func writeBeacon(t *testing.T, home string, pid int, url, session string) {
	t.Helper()
	dir := filepath.Join(home, ".dsh", "mcp-watchdog", "clients")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC().Format(time.RFC3339Nano)
	doc := map[string]any{"version": 1, "pid": pid, "updated": now, "servers": []map[string]any{{
		"name": "mem", "url": url, "session_id": session, "state": "connected",
		"connected_since": now, "last_request": now, "updated": now}}}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%d.json", pid)), b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// serverSource is a status server's "source".
func serverSource(st map[string]any, name string) string {
	servers, _ := st["servers"].([]any)
	for _, s := range servers {
		if m, _ := s.(map[string]any); m["name"] == name {
			src, _ := m["source"].(string)
			return src
		}
	}
	return ""
}
