package daemon

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/fsutil"
	"github.com/mcpwatchdog/watchdog/internal/health"
)

// TestTrackedFileLinkIsNotFollowed: a sessions.json planted as a symbolic
// link is not read through (an error naming it, which Serve logs as a
// warning), and the next save replaces the link itself: the target keeps
// its content and mode.
func TestTrackedFileLinkIsNotFollowed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	target := filepath.Join(t.TempDir(), "victim")
	body := `{"servers":{"mem":[{"ID":"planted-session-id-0001"}]}}`
	if err := os.WriteFile(target, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chmod(target, 0o644)
	path := filepath.Join(dir, trackedName)
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
	got, err := loadTracked(dir, nil)
	if !errors.Is(err, fsutil.ErrSymlink) || !strings.Contains(err.Error(), path) || got.Servers != nil {
		t.Fatalf("loadTracked = %v, %v; want ErrSymlink naming %s and nothing loaded", got, err, path)
	}
	s := trackedSaver{path: path}
	st := privateState{servers: map[string][]health.StoreSession{"mem": {{ID: "aaaa-1111-2222-aaaa"}}}}
	if err := s.save(st, 0, time.Now(), true); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(target)
	fi, _ := os.Stat(target)
	if string(b) != body || fi.Mode().Perm() != 0o644 {
		t.Fatalf("target now %q, mode %v", b, fi.Mode().Perm())
	}
	if fi, _ := os.Lstat(path); !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o600 {
		t.Fatalf("%s is now %v; want a regular 0600 file", trackedName, fi.Mode())
	}
}
