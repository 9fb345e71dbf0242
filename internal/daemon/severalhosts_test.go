package daemon_test

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwatchdog/watchdog/internal/daemon"
	"github.com/mcpwatchdog/watchdog/internal/demoserver"
	"github.com/mcpwatchdog/watchdog/internal/testbed/daemontest"
)

// TestSeveralHostsEachToldItsOwn: two hosts on one server, each with its
// own client: Claude Code, which re-initializes by itself (the Go SDK
// client made anew, as it does), and Cursor, taken to keep the dead id.
// Both sessions expire. Each loss names its host and says what that host
// does; only Cursor's is healed (its advice: adopt Cursor), Claude Code's
// closes on its new session; the status lists each host's session.
func TestSeveralHostsEachToldItsOwn(t *testing.T) {
	t.Parallel()
	srv, cfg, state := daemontest.MemSetupHosts(t, 2*time.Second, false,
		"[[host]]\nname = \"Claude Code\"\nprocess = \"\"\n\n[[host]]\nname = \"Cursor\"\nprocess = \"\"\n")
	startDaemon(t, cfg, state)
	cc := calling(t, srv, "claude-code")
	calling(t, srv, "cursor-vscode")
	daemontest.WaitEvent(t, state, "session_lost", 2, 30*time.Second)
	losses := map[string]daemontest.JournalLine{}
	for _, ev := range daemontest.Journal(t, state, "session_lost") {
		losses[ev.Str("host")] = ev
	}
	if d := losses["Claude Code"].Str("detail"); !strings.Contains(d, "it re-initializes on its next call") {
		t.Errorf("Claude Code's loss: %q", d)
	}
	if d := losses["Cursor"].Str("detail"); !strings.Contains(d, "its next call will fail") || losses["Cursor"].Str("on_loss") != "stuck" {
		t.Errorf("Cursor's loss: %v", losses["Cursor"])
	}
	failed := daemontest.WaitEvent(t, state, "heal_failed", 1, 30*time.Second)
	if failed.Str("host") != "Cursor" || !strings.Contains(failed.Str("detail"), "watchdog hosts adopt Cursor") {
		t.Fatalf("heal_failed: %v, want Cursor's, with its own advice", failed)
	}
	if err := echo(t.Context(), cc); !errors.Is(err, mcp.ErrSessionMissing) {
		t.Fatalf("Claude Code's call after the expiry: %v, want the session missing", err)
	}
	calling(t, srv, "claude-code") // it opens a new session
	back := daemontest.WaitEvent(t, state, "recovered", 1, 30*time.Second)
	if back.Str("host") != "Claude Code" {
		t.Fatalf("recovered: %v, want Claude Code's", back)
	}
	for _, ev := range daemontest.Journal(t, state, "heal_started", "heal_failed", "recovered") {
		if ev.Str("host") == "Claude Code" && ev.Str("kind") != "recovered" {
			t.Errorf("Claude Code heals itself, yet: %v", ev)
		}
		if ev.Str("host") == "Cursor" && ev.Str("kind") == "recovered" {
			t.Errorf("Cursor's session never came back, yet: %v", ev)
		}
	}
	assertHostSessions(t, state)
}

// assertHostSessions: the status lists both hosts as watched, the server
// lost (Cursor's session is), and Claude Code's new session as its current.
func assertHostSessions(t *testing.T, state string) {
	t.Helper()
	st := status(t, state)
	srvState, sessions := daemontest.ServerState(st, "mem")
	if srvState != "lost" {
		t.Errorf("server state %q, want lost: Cursor's session is", srvState)
	}
	current := map[string]bool{}
	for _, s := range sessions {
		m, _ := s.(map[string]any)
		if h, _ := m["host"].(string); h != "" {
			current[h] = true
		}
	}
	if !current["Claude Code"] {
		t.Errorf("sessions %v: want Claude Code's current one named", sessions)
	}
	watched := map[string]bool{}
	hosts, _ := st["hosts"].([]any)
	for _, h := range hosts {
		m, _ := h.(map[string]any)
		if w, _ := m["watched"].(bool); w {
			watched[m["name"].(string)] = true
		}
	}
	if !watched["Claude Code"] || !watched["Cursor"] {
		t.Errorf("status hosts %v: want both watched", hosts)
	}
}

// TestSeveralHostsKeepTheirIncidentsAcrossAReload: Cursor's open incident
// and Claude Code's tracked session survive a config reload (the journal
// and the private state keep whose each is); Cursor's new session then
// closes its own incident, told once.
func TestSeveralHostsKeepTheirIncidentsAcrossAReload(t *testing.T) {
	t.Parallel()
	srv, cfgPath, state := daemontest.MemSetupHosts(t, 2*time.Second, false,
		"[[host]]\nname = \"Claude Code\"\nprocess = \"\"\n\n[[host]]\nname = \"Cursor\"\nprocess = \"\"\n")
	startDaemonOpts(t, cfgPath, state, daemon.Options{ConfigFile: cfgPath})
	cc := calling(t, srv, "claude-code")
	keepAlive(t, cc)
	calling(t, srv, "cursor-vscode")
	daemontest.WaitEvent(t, state, "heal_failed", 1, 30*time.Second)
	orig, err := os.ReadFile(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	writeAtomic(t, cfgPath, string(orig)+"\n# touched\n")
	daemontest.WaitEvent(t, state, "started", 2, 30*time.Second)
	ccID := daemontest.MaskedID(cc.ID())
	daemontest.WaitFor(t, 20*time.Second, "Claude Code's session kept across the reload", func() bool {
		st, ok := statusNow(state)
		srvState, sessions := daemontest.ServerState(st, "mem")
		return ok && srvState == "lost" && hasSession(sessions, ccID)
	})
	calling(t, srv, "cursor-vscode") // a new session
	back := daemontest.WaitEvent(t, state, "recovered", 1, 30*time.Second)
	if back.Str("host") != "Cursor" {
		t.Fatalf("recovered: %v, want Cursor's", back)
	}
	if lost := daemontest.Journal(t, state, "session_lost"); len(lost) != 1 || lost[0].Str("host") != "Cursor" {
		t.Fatalf("losses %v: want Cursor's, told once", lost)
	}
}

// calling is a session of client on srv that has made one call; it is
// closed when the test ends.
func calling(t *testing.T, srv *demoserver.Server, client string) *mcp.ClientSession {
	t.Helper()
	cs, err := demoserver.Connect(t.Context(), srv.URL(), client)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	if err := echo(t.Context(), cs); err != nil {
		t.Fatal(err)
	}
	return cs
}
