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

// TestGlobKindsFromTheListing: a pass tells a file from a directory by the
// directory's listing and looks where links point, so a link to a log and
// a log in a linked directory are followed, a directory named like a log
// is not, and a FIFO is a warning; the same when each appears after the
// start-up scan.
func TestGlobKindsFromTheListing(t *testing.T) {
	t.Parallel()
	for _, later := range []bool{false, true} {
		t.Run(map[bool]string{false: "at start", true: "appearing later"}[later], func(t *testing.T) {
			t.Parallel()
			root, elsewhere := t.TempDir(), t.TempDir()
			mustDo(t, os.MkdirAll(filepath.Join(root, "real"), 0o700))
			mustDo(t, os.MkdirAll(filepath.Join(elsewhere, "linked"), 0o700))
			// What the logs hold before the follower finds them: their
			// lines come as history at start, as new lines later.
			writeFile(t, filepath.Join(elsewhere, "target.log"), "link.log\n")
			writeFile(t, filepath.Join(elsewhere, "linked", "app.log"), "via-link/app.log\n")
			create := func() {
				writeFile(t, filepath.Join(root, "real", "app.log"), "real/app.log\n")
				mustDo(t, os.Symlink(filepath.Join(elsewhere, "target.log"), filepath.Join(root, "real", "link.log")))
				mustDo(t, os.Mkdir(filepath.Join(root, "real", "dir.log"), 0o700))
				mustDo(t, syscall.Mkfifo(filepath.Join(root, "real", "pipe.log"), 0o600))
				mustDo(t, os.Symlink(filepath.Join(elsewhere, "linked"), filepath.Join(root, "via-link")))
			}
			if !later {
				create()
			}
			h := startFollower(t, Options{Sources: []Source{{Tag: "t", Globs: []string{filepath.Join(root, "*", "*.log")}}},
				Backstop: longBackstop, HistoryBytes: 1 << 20})
			if later {
				create()
			}
			for _, text := range []string{"real/app.log", "link.log", "via-link/app.log"} {
				h.waitText(text)
			}
			if got := len(h.got()); got != 3 {
				t.Errorf("%d lines, want 3 (one from each log): %q", got, texts(h.got()))
			}
			fifo := filepath.Join(root, "real", "pipe.log")
			waitUntil(t, "a warning about the FIFO", func() bool {
				return slices.ContainsFunc(h.warnings(), func(w warning) bool {
					return w.path == fifo && errors.Is(w.err, fsutil.ErrNotRegular)
				})
			})
			for _, w := range h.warnings() {
				if w.path != fifo {
					t.Errorf("unexpected warning about %s: %v", w.path, w.err)
				}
			}
		})
	}
}
