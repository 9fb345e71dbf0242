package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/control"
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
	go func() { done <- control.Serve(ctx, control.SocketPath(state), hugeStatus{}, nil) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	waitSocket(t, control.SocketPath(state))
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
