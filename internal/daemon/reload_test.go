package daemon_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwatchdog/watchdog/internal/control"
	"github.com/mcpwatchdog/watchdog/internal/daemon"
	"github.com/mcpwatchdog/watchdog/internal/demoserver"
	"github.com/mcpwatchdog/watchdog/internal/fsutil"
	"github.com/mcpwatchdog/watchdog/internal/testbed/daemontest"
)

// statusNow is the daemon's status, or false while its socket is not
// answering (a run ending for a changed config, and the next starting).
func statusNow(stateDir string) (map[string]any, bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	raw, err := control.Dial(control.SocketPath(stateDir)).Status(ctx)
	if err != nil {
		return nil, false
	}
	var st map[string]any
	return st, json.Unmarshal(raw, &st) == nil
}

func hasSession(sessions []any, masked string) bool {
	for _, s := range sessions {
		if m, _ := s.(map[string]any); m["id"] == masked {
			return true
		}
	}
	return false
}

// TestConfigChangeIsTakenWithoutLosingState: the config file rewritten
// while the daemon runs (a server with a proxy added, as adopt does) is
// taken without the process restarting; the open incident and the other
// client's tracked session are kept, and the loss is not told twice. A
// config that then fails to load is journaled with its file, line and
// key, and the running config stays.
// Long: one scenario in three acts (state before, a change taken, a bad
// change refused), each standing on the one before.
func TestConfigChangeIsTakenWithoutLosingState(t *testing.T) {
	t.Parallel()
	srv, cfgPath, state := daemontest.KeepWarmSetup(t, false, "")
	startDaemonOpts(t, cfgPath, state, daemon.Options{ConfigFile: cfgPath})
	ctx := t.Context()
	host, err := demoserver.Connect(ctx, srv.URL(), daemontest.HostClient())
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	other, err := demoserver.Connect(ctx, srv.URL(), "other-client")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	keepAlive(t, other) // the other client stays active; the host's session expires
	daemontest.WaitEvent(t, state, "session_lost", 1, 30*time.Second)
	otherID := daemontest.MaskedID(other.ID())
	daemontest.WaitFor(t, 20*time.Second, "the other client's session tracked", func() bool {
		st, ok := statusNow(state)
		_, sessions := daemontest.ServerState(st, "mem")
		return ok && hasSession(sessions, otherID)
	})

	orig, err := os.ReadFile(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	listen := daemontest.FreePort(t)
	added := string(orig) + fmt.Sprintf("\n[[server]]\nname = \"mem2\"\nurl = %q\nproxy_listen = %q\nkeep_warm = false\n", srv.URL(), listen)
	writeAtomic(t, cfgPath, added)
	var st map[string]any
	daemontest.WaitFor(t, 30*time.Second, "the new server in the status", func() bool {
		var ok bool
		st, ok = statusNow(state)
		s, _ := daemontest.ServerState(st, "mem2")
		return ok && s != ""
	})
	memState, sessions := daemontest.ServerState(st, "mem")
	if memState != "lost" || !hasSession(sessions, otherID) {
		t.Fatalf("after the change: mem %q, sessions %v; want the incident and the other client's session kept", memState, sessions)
	}
	if stopped := daemontest.Journal(t, state, "stopped"); len(stopped) != 1 || !strings.Contains(stopped[0].Str("detail"), "changed config") {
		t.Fatalf("stopped events: %v", stopped)
	}
	if lost := daemontest.Journal(t, state, "session_lost"); len(lost) != 1 {
		t.Fatalf("the loss was told %d times: %v", len(lost), lost)
	}
	daemontest.WaitFor(t, 10*time.Second, "the new proxy listening", func() bool { return proxyAnswers(listen) })

	writeAtomic(t, cfgPath, added+"\n[[server]\nname = \"broken\"\n")
	var said string
	daemontest.WaitFor(t, 30*time.Second, "a warning that the config does not load", func() bool {
		for _, w := range daemontest.Journal(t, state, "warning") {
			if d := w.Str("detail"); strings.Contains(d, "does not load") {
				said = d
				return true
			}
		}
		return false
	})
	if !strings.Contains(said, "config.toml:") {
		t.Fatalf("the warning does not name the file and line: %q", said)
	}
	st, ok := statusNow(state)
	if s, _ := daemontest.ServerState(st, "mem2"); !ok || s == "" {
		t.Fatalf("the running config was dropped for a bad one: %v", st)
	}
	if n := len(daemontest.Journal(t, state, "started")); n != 2 {
		t.Fatalf("%d starts; want the first and the one that took the change", n)
	}
}

// keepAlive calls the echo tool every half second until the test ends.
func keepAlive(t *testing.T, cs *mcp.ClientSession) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	t.Cleanup(func() { cancel(); <-done })
	go func() {
		defer close(done)
		tick := time.NewTicker(500 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				_ = echo(ctx, cs)
			}
		}
	}()
}

func writeAtomic(t *testing.T, path, text string) {
	t.Helper()
	if err := fsutil.WriteAtomic(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// proxyAnswers: something serves HTTP at addr (the proxy answers a
// request without its secret with 404).
func proxyAnswers(addr string) bool {
	resp, err := http.Get("http://" + addr + "/")
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusNotFound
}
