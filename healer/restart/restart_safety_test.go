//go:build unix

package restart_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwatchdog/watchdog/healer/restart"
	"github.com/mcpwatchdog/watchdog/internal/fsutil"
)

// restartLinkedLog: a host log that is a symbolic link is refused naming
// it; its target keeps its content and mode and the host keeps running.
func restartLinkedLog(t *testing.T, exe string) {
	old := startOldHost(t, exe, false)
	target := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(target, []byte("precious\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chmod(target, 0o644)
	hostLog := filepath.Join(t.TempDir(), "host.log")
	if err := os.Symlink(target, hostLog); err != nil {
		t.Fatal(err)
	}
	rig := newRestartRig(t, restart.Options{Argv: []string{exe}, LogPath: hostLog})
	_, err := rig.restart(t, context.Background(), old.identity(t))
	if !errors.Is(err, fsutil.ErrSymlink) || !strings.Contains(err.Error(), hostLog) {
		t.Fatalf("Restart = %v; want ErrSymlink naming %s", err, hostLog)
	}
	b, _ := os.ReadFile(target)
	fi, _ := os.Stat(target)
	if string(b) != "precious\n" || fi.Mode().Perm() != 0o644 {
		t.Fatalf("target now %q, mode %v", b, fi.Mode().Perm())
	}
	if !old.running() {
		t.Fatalf("old host %d stopped although the log was refused", old.pid)
	}
}
