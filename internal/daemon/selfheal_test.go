package daemon_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwatchdog/watchdog/internal/demoserver"
	"github.com/mcpwatchdog/watchdog/internal/testbed/daemontest"
)

// hostSetup: a real Go SDK server whose sessions expire after 2 s idle,
// and a watchdog config naming host (its profile's client name) as the
// host, with no keep-warm, so the host's session does expire.
func hostSetup(t *testing.T, hostName string) (*demoserver.Server, string, string) {
	t.Helper()
	return daemontest.MemSetup(t, 2*time.Second, false, fmt.Sprintf("name = %q\nprocess = \"\"\nport = 0\n", hostName))
}

func echo(ctx context.Context, cs *mcp.ClientSession) error {
	_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}})
	return err
}

// TestSelfHealingHostIsToldTheTruth is the measured case: a host that
// re-initializes by itself (here the Go SDK client, made anew on its
// session's loss, as Claude Code does) under the Claude Code profile. Its
// loss says it re-initializes on its next call, nothing tries to heal it
// or says healing failed, and its new session closes the incident.
func TestSelfHealingHostIsToldTheTruth(t *testing.T) {
	t.Parallel()
	srv, cfg, state := hostSetup(t, "Claude Code")
	startDaemon(t, cfg, state)
	ctx := t.Context()
	cs, err := demoserver.Connect(ctx, srv.URL(), "claude-code")
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if err := echo(ctx, cs); err != nil {
		t.Fatal(err)
	}
	lost := daemontest.WaitEvent(t, state, "session_lost", 1, 30*time.Second)
	if d := lost.Str("detail"); !strings.Contains(d, "it re-initializes on its next call") || strings.Contains(d, "will fail") {
		t.Fatalf("loss of a self-healing host: %q", d)
	}
	if lost.Str("host") != "Claude Code" || lost.Str("on_loss") != "self-healing" || lost.Str("on_loss_source") != "profile" {
		t.Fatalf("loss fields: %v", lost)
	}
	// The host's next call meets the loss and it opens a new session.
	if err := echo(ctx, cs); !errors.Is(err, mcp.ErrSessionMissing) {
		t.Fatalf("the call after the expiry: %v, want the session missing", err)
	}
	cs2, err := demoserver.Connect(ctx, srv.URL(), "claude-code")
	if err != nil {
		t.Fatal(err)
	}
	defer cs2.Close()
	if err := echo(ctx, cs2); err != nil {
		t.Fatal(err)
	}
	daemontest.WaitEvent(t, state, "recovered", 1, 30*time.Second)
	if evs := daemontest.Journal(t, state, "heal_started", "heal_failed"); len(evs) != 0 {
		t.Fatalf("a self-healing host was healed or told healing failed: %v", evs)
	}
}

// TestStuckHostIsToldItsNextCallFails: the same loss under a host that
// keeps the dead id (Cursor's profile, a client that never reconnects):
// its next call fails, and the advice is the proxy, never DSH's patch.
func TestStuckHostIsToldItsNextCallFails(t *testing.T) {
	t.Parallel()
	srv, cfg, state := hostSetup(t, "Cursor")
	startDaemon(t, cfg, state)
	ctx := t.Context()
	cs, err := demoserver.Connect(ctx, srv.URL(), "cursor-vscode")
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if err := echo(ctx, cs); err != nil {
		t.Fatal(err)
	}
	lost := daemontest.WaitEvent(t, state, "session_lost", 1, 30*time.Second)
	if d := lost.Str("detail"); !strings.Contains(d, "its next call will fail") || lost.Str("on_loss") != "stuck" {
		t.Fatalf("loss of a stuck host: %q %v", d, lost)
	}
	failed := daemontest.WaitEvent(t, state, "heal_failed", 1, 30*time.Second)
	if d := failed.Str("detail"); !strings.Contains(d, "watchdog hosts adopt Cursor") || strings.Contains(d, "patch") {
		t.Fatalf("advice for a stuck host with no patch: %q", d)
	}
	if err := echo(ctx, cs); !errors.Is(err, mcp.ErrSessionMissing) {
		t.Fatalf("the stuck host's next call: %v, want it to fail", err)
	}
}
