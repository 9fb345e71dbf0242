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

// Issue 15: a module path that is a FIFO blocked `patch apply` and
// `patch revert` in open(2) for good. They now refuse it at once, naming
// what it is.
func TestApplyAndRevertRefuseAFIFO(t *testing.T) {
	t.Parallel()
	fifo := filepath.Join(t.TempDir(), "index.js")
	mustDo(t, syscall.Mkfifo(fifo, 0o600))
	for name, do := range map[string]func(string, InstallOptions) (Status, error){"apply": Install, "revert": Revert} {
		done := make(chan error, 1)
		go func() {
			_, err := do(fifo, opts(t))
			done <- err
		}()
		select {
		case err := <-done:
			if !errors.Is(err, fsutil.ErrNotRegular) {
				t.Fatalf("%s of a FIFO: %v, want an error saying it is no regular file", name, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s of a FIFO still blocked after 10 s", name)
		}
	}
}
