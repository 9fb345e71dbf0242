package instance

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/mcpwatchdog/watchdog/internal/fsutil"
)

// TestPlantedLockIsRefused: a watchdog.lock that is a symbolic link, or a
// FIFO, is refused with an error naming it; a link's target keeps its
// content and mode, and no pid file is written.
func TestPlantedLockIsRefused(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		plant   func(t *testing.T, lock string) (target string)
		wantErr error
	}{
		{"symlink", func(t *testing.T, lock string) string {
			target := filepath.Join(t.TempDir(), "victim")
			if err := os.WriteFile(target, []byte("precious\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			os.Chmod(target, 0o644)
			if err := os.Symlink(target, lock); err != nil {
				t.Fatal(err)
			}
			return target
		}, fsutil.ErrSymlink},
		{"FIFO", func(t *testing.T, lock string) string {
			if err := syscall.Mkfifo(lock, 0o600); err != nil {
				t.Fatal(err)
			}
			return ""
		}, fsutil.ErrNotRegular},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			lock := filepath.Join(dir, LockFile)
			target := tt.plant(t, lock)
			l, err := Acquire(dir)
			if err == nil {
				l.Release()
				t.Fatal("Acquire took a planted lock file")
			}
			if !errors.Is(err, tt.wantErr) || !strings.Contains(err.Error(), lock) {
				t.Fatalf("Acquire = %v; want %v naming %s", err, tt.wantErr, lock)
			}
			if target != "" {
				b, _ := os.ReadFile(target)
				fi, _ := os.Stat(target)
				if string(b) != "precious\n" || fi.Mode().Perm() != 0o644 {
					t.Fatalf("target now %q, mode %v", b, fi.Mode().Perm())
				}
			}
			if _, err := os.Stat(filepath.Join(dir, PIDFile)); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("pid file written: %v", err)
			}
		})
	}
}

// TestUnsafeStateDirIsRefused: a state directory others can write to, or
// another user's, is refused before the lock file is created in it.
func TestUnsafeStateDirIsRefused(t *testing.T) {
	t.Parallel()
	for name, spoil := range map[string]func(string) error{
		"mode 0777":       func(d string) error { return os.Chmod(d, 0o777) },
		"owned by nobody": func(d string) error { return os.Chown(d, 65534, 65534) },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "state")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := spoil(dir); err != nil {
				t.Fatal(err)
			}
			l, err := Acquire(dir)
			if err == nil {
				l.Release()
				t.Fatal("Acquire accepted the directory")
			}
			if !errors.Is(err, fsutil.ErrUnsafeDir) {
				t.Fatalf("Acquire = %v, want ErrUnsafeDir", err)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Fatalf("created in the refused directory: %v", entries)
			}
		})
	}
}
