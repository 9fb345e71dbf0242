package demo

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/demoserver"
)

// waitLimitTest is generous: a loaded 2-core machine must not fail these tests.
const waitLimitTest = 20 * time.Second

// startServer runs a demo server with a log, closed when the test ends.
func startServer(t *testing.T, idle time.Duration) (*demoserver.Server, string) {
	t.Helper()
	dir := t.TempDir()
	logPath := filepath.Join(dir, "server.log")
	srv, err := demoserver.Start(t.Context(), demoserver.Options{IdleTimeout: idle,
		StorePath: filepath.Join(dir, "mcp-sessions.json"), LogPath: logPath})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	return srv, logPath
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitLimitTest)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 2*waitLimitTest)
	t.Cleanup(cancel)
	return ctx
}
