package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/control"
	"github.com/mcpwatchdog/watchdog/internal/daemon"
	"github.com/mcpwatchdog/watchdog/internal/health"
)

// hugeStatus answers status with a document over the client's read limit,
// as a daemon before the session cap could.
type hugeStatus struct{}

func (hugeStatus) Status(context.Context) (any, error) {
	return map[string]any{"servers": []any{}, "pad": strings.Repeat("x", 9<<20)}, nil
}

func (hugeStatus) Heal(context.Context, string) (any, error) { return nil, nil }

// TestStatusAnswerTooLarge: `watchdog status` given an answer over its read
// limit says it was cut and exits 1; it never calls it invalid JSON.
func TestStatusAnswerTooLarge(t *testing.T) {
	t.Parallel()
	state := filepath.Join(t.TempDir(), "state")
	if err := os.MkdirAll(state, 0o700); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- control.Serve(ctx, daemon.SocketPath(state), hugeStatus{}, nil) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	waitSocket(t, daemon.SocketPath(state))
	for _, args := range [][]string{{"status"}, {"status", "--json"}} {
		code, out, errOut := runWatchdog(t, append(args, "--state-dir", state)...)
		if code != exitFailed {
			t.Errorf("%v: exit %d, want %d; stderr %s", args, code, exitFailed, errOut)
		}
		if !strings.Contains(errOut, "status answer larger than") || !strings.Contains(errOut, "bytes; cut") ||
			strings.Contains(errOut, "invalid JSON") {
			t.Errorf("%v: stderr %q, want it to say the answer was cut", args, errOut)
		}
		if out != "" {
			t.Errorf("%v: printed %d bytes of a cut answer", args, len(out))
		}
	}
}

func waitSocket(t *testing.T, path string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(path); err == nil {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no socket at %s", path)
}

// TestStatusSaysTheEra: the text status names a server's protocol era and
// says when its proxy bridges the eras, and which host sessions ride on it.
func TestStatusSaysTheEra(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	writeStatus(&b, health.Status{Servers: []health.ServerStatus{{Name: "mem", Mode: health.Stateless, Era: health.EraModernOnly,
		State: health.Healthy, ProxyURL: "http://127.0.0.1:1/s/mcp", ProxyBridges: true,
		ProxySessions: []health.ProxySession{{ID: "ab12…9f3e", Client: "c", Bridged: true}}}}})
	for _, want := range []string{"healthy, stateless, modern-only, idle timeout", "bridges the eras", "bridged (the server keeps no session)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("status text %q does not say %q", b.String(), want)
		}
	}
}

// TestStatusSaysSessionsOmitted: the text status says how many sessions
// the daemon left out of its list.
func TestStatusSaysSessionsOmitted(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	writeStatus(&b, health.Status{Servers: []health.ServerStatus{{Name: "mem", SessionsOmitted: 7,
		Sessions: []health.SessionStatus{{ID: "ab12…9f3e", Client: "c", State: health.Healthy}}}}})
	if want := fmt.Sprintf("and 7 more session(s) not listed (at most %d", health.MaxStatusSessions); !strings.Contains(b.String(), want) {
		t.Errorf("status text %q does not say %q", b.String(), want)
	}
}
