package clientpatch

import (
	"errors"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/fsutil"
)

// TestInspectFIFO: a module that became a FIFO after it was found is an
// error at once, not a read blocked forever (the daemon inspects it every
// minute, and its shutdown waits for that goroutine).
func TestInspectFIFO(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "index.js")
	mustDo(t, syscall.Mkfifo(path, 0o600))
	done := make(chan error, 1)
	go func() { _, err := Inspect(path, InspectOptions{}); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, fsutil.ErrNotRegular) {
			t.Fatalf("Inspect = %v, want ErrNotRegular", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Inspect blocked on a FIFO")
	}
}
