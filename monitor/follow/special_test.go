package follow

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/fsutil"
)

// TestFIFOLogWarns: a FIFO a log glob matches is a warning naming it, not
// a hang and not silence; the regular logs beside it are read.
func TestFIFOLogWarns(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "a.log")
	mustDo(t, syscall.Mkfifo(fifo, 0o600))
	writeFile(t, filepath.Join(dir, "b.log"), "hello\n")
	h := startFollower(t, Options{Sources: logGlob(dir), Backstop: longBackstop, HistoryBytes: 1 << 20})
	h.waitText("hello")
	waitUntil(t, "a warning about the FIFO", func() bool {
		return slices.ContainsFunc(h.warnings(), func(w warning) bool {
			return w.path == fifo && errors.Is(w.err, fsutil.ErrNotRegular)
		})
	})
}

// TestPlantedCheckpoint: a checkpoint that is a symbolic link or a FIFO is
// a bad checkpoint (never followed, never blocked on), and the next save
// replaces the link itself: its target keeps its content and mode.
func TestPlantedCheckpoint(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		plant   func(t *testing.T, path string) (target string)
		wantErr error
	}{
		{"symlink", func(t *testing.T, path string) string {
			target := filepath.Join(t.TempDir(), "victim")
			writeFile(t, target, "precious\n")
			mustDo(t, os.Chmod(target, 0o644))
			mustDo(t, os.Symlink(target, path))
			return target
		}, fsutil.ErrSymlink},
		{"FIFO", func(t *testing.T, path string) string {
			mustDo(t, syscall.Mkfifo(path, 0o600))
			return ""
		}, fsutil.ErrNotRegular},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "checkpoint.json")
			target := tt.plant(t, path)
			done := make(chan error, 1)
			go func() { _, err := New(Options{CheckpointFile: path}); done <- err }()
			var err error
			select {
			case err = <-done:
			case <-time.After(5 * time.Second):
				t.Fatal("New blocked on the checkpoint")
			}
			if !errors.Is(err, ErrBadCheckpoint) || !errors.Is(err, tt.wantErr) {
				t.Fatalf("New = %v; want ErrBadCheckpoint and %v", err, tt.wantErr)
			}
			if target == "" {
				return
			}
			mustDo(t, writeCheckpoint(path, []Position{{Path: "/a", Fingerprint: fpOf(t, "x\n"), Offset: 2}}))
			b, _ := os.ReadFile(target)
			fi, _ := os.Stat(target)
			if string(b) != "precious\n" || fi.Mode().Perm() != 0o644 {
				t.Fatalf("target now %q, mode %v", b, fi.Mode().Perm())
			}
			if fi, _ := os.Lstat(path); !fi.Mode().IsRegular() {
				t.Fatalf("the checkpoint is still a %v", fi.Mode().Type())
			}
		})
	}
}
