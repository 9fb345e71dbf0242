package store

import (
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/mcpwatchdog/watchdog/internal/fsutil"
)

// TestWatcherFIFOStore: a store path that is a FIFO is an error update
// naming it, not a watcher blocked in open(2); the cleanup's cancel then
// ends Run (startWatcher checks it returns).
func TestWatcherFIFOStore(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "mcp-sessions.json")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	h := startWatcher(t, Options{Path: path})
	u := h.waitFor("error", isErr)[0]
	if !errors.Is(u.Err, fsutil.ErrNotRegular) || !strings.Contains(u.Err.Error(), path) || !strings.Contains(u.Err.Error(), "FIFO") {
		t.Fatalf("error %v: want ErrNotRegular naming %s as a FIFO", u.Err, path)
	}
}

// TestReadFIFO: Read, which doctor uses too, refuses a FIFO at once.
func TestReadFIFO(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "mcp-sessions.json")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(path); !errors.Is(err, fsutil.ErrNotRegular) {
		t.Fatalf("Read = %v, want ErrNotRegular", err)
	}
}
