package repro

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/healer"
	"github.com/mcpwatchdog/watchdog/internal/demoserver"
	"github.com/mcpwatchdog/watchdog/internal/testbed/repo"
)

// sharedHost is a patched stand-in host with one plugin instance per server.
type sharedHost struct {
	*host
	home    string
	servers map[string]*demoserver.Server
}

func startSharedHost(t *testing.T, names ...string) sharedHost {
	t.Helper()
	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	p := newPaths(root)
	o, err := Options{Patched: true, ReconnectInitial: 100 * time.Millisecond}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	node, err := p.check(o)
	if err != nil {
		t.Fatal(err)
	}
	sh := sharedHost{home: t.TempDir(), servers: make(map[string]*demoserver.Server)}
	module, err := prepareModule(o, p, node, t.TempDir(), sh.home)
	if err != nil {
		t.Fatal(err)
	}
	var hs []hostServer
	for _, name := range names {
		s, err := demoserver.Start(t.Context(), demoserver.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		sh.servers[name] = s
		hs = append(hs, hostServer{name, s.URL()})
	}
	if sh.host, err = startHost(node, p, module, o, hs, sh.home); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sh.stop)
	return sh
}

// waitFor polls the beacon until cond holds; a minute is generous for a
// loaded machine (the client samples its state every 500 ms).
func (sh sharedHost) waitFor(t *testing.T, what string, cond func(Beacon) bool) Beacon {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	for {
		bc, err := ReadBeacon(sh.home, sh.proc.pid)
		if err == nil && cond(bc) {
			return bc
		}
		select {
		case <-ctx.Done():
			t.Fatalf("beacon never showed %s (last error %v)", what, err)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// sessionOf is the server's one live session (the host's).
func (sh sharedHost) sessionOf(t *testing.T, name string) string {
	t.Helper()
	ids := sh.servers[name].SessionIDs()
	if len(ids) != 1 {
		t.Fatalf("server %s has %d live sessions, want 1", name, len(ids))
	}
	return ids[0]
}

// waitOnly polls until the server's only live session is id: a recovered
// generation DELETEs the session it gave up, so the server keeps no other.
func (sh sharedHost) waitOnly(t *testing.T, name, id string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		ids := sh.servers[name].SessionIDs()
		if len(ids) == 1 && ids[0] == id {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("server %s has %d live sessions, want only the beacon's", name, len(ids))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// connectedOn: the beacon shows server name connected on session id.
func connectedOn(bc Beacon, name, id string) bool {
	s, ok := bc.Server(name)
	return ok && s.State == "connected" && s.SessionID == id
}

func trigger(t *testing.T, home, name string) {
	t.Helper()
	if err := healer.WriteTrigger(filepath.Join(home, dsh().Client.TriggerDir), name, time.Now()); err != nil {
		t.Fatal(err)
	}
}

// TestBeaconSharedAndTriggersTargeted: two plugin instances in one process
// share one beacon; a trigger named after one server recovers only that
// server, "all" recovers both, a trigger naming no server of the process
// is left for its owner; disposing an instance drops its entry, and the
// last one out removes the file.
func TestBeaconSharedAndTriggersTargeted(t *testing.T) {
	t.Parallel()
	sh := startSharedHost(t, "alpha", "beta")
	a0, b0 := sh.sessionOf(t, "alpha"), sh.sessionOf(t, "beta")
	bc := sh.waitFor(t, "both servers connected", func(bc Beacon) bool {
		return connectedOn(bc, "alpha", a0) && connectedOn(bc, "beta", b0)
	})
	if bc.Mode != 0o600 || bc.PID != sh.proc.pid || len(bc.Servers) != 2 {
		t.Fatalf("beacon mode %v pid %d (host %d), %d servers; want 0600, the host's pid, 2", bc.Mode, bc.PID, sh.proc.pid, len(bc.Servers))
	}

	trigger(t, sh.home, "alpha")
	bc = sh.waitFor(t, "alpha on a new session", func(bc Beacon) bool {
		s, _ := bc.Server("alpha")
		return s.State == "connected" && s.SessionID != a0 && s.SessionID != ""
	})
	a1 := mustServer(t, bc, "alpha").SessionID
	sh.waitOnly(t, "alpha", a1)
	if !connectedOn(bc, "beta", b0) || sh.sessionOf(t, "beta") != b0 {
		t.Fatal("a trigger for alpha recovered beta too")
	}

	trigger(t, sh.home, "gamma") // no such server in this process
	trigger(t, sh.home, "all")
	bc = sh.waitFor(t, "both on new sessions", func(bc Beacon) bool {
		a, _ := bc.Server("alpha")
		b, _ := bc.Server("beta")
		return a.State == "connected" && b.State == "connected" && a.SessionID != a1 && b.SessionID != b0
	})
	sh.waitOnly(t, "alpha", mustServer(t, bc, "alpha").SessionID)
	sh.waitOnly(t, "beta", mustServer(t, bc, "beta").SessionID)
	recover := filepath.Join(sh.home, dsh().Client.TriggerDir)
	if _, err := os.Stat(filepath.Join(recover, "gamma")); err != nil {
		t.Errorf("the trigger for a server of another process was consumed: %v", err)
	}
	if _, err := os.Stat(filepath.Join(recover, "all")); !os.IsNotExist(err) {
		t.Errorf("the trigger for all was not consumed: %v", err)
	}

	if err := sh.dispose("alpha"); err != nil {
		t.Fatal(err)
	}
	sh.waitFor(t, "beta alone", func(bc Beacon) bool { _, a := bc.Server("alpha"); return !a && len(bc.Servers) == 1 })
	if res, err := sh.call("mcp__beta__echo", `{"text":"still here"}`); err != nil || !res.OK {
		t.Fatalf("beta after alpha's disposal: %+v, %v", res, err)
	}
	pid := sh.proc.pid
	if err := sh.quit(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(BeaconPath(sh.home, pid)); !os.IsNotExist(err) {
		t.Errorf("beacon left after the last instance was disposed: %v", err)
	}
}

func mustServer(t *testing.T, bc Beacon, name string) BeaconServer {
	t.Helper()
	s, ok := bc.Server(name)
	if !ok {
		t.Fatalf("beacon has no entry for %s", name)
	}
	return s
}
