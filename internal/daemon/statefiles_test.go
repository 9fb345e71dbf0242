package daemon_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/config"
	"github.com/mcpwatchdog/watchdog/internal/control"
	"github.com/mcpwatchdog/watchdog/internal/daemon"
	"github.com/mcpwatchdog/watchdog/internal/fsutil"
	"github.com/mcpwatchdog/watchdog/internal/journal"
	"github.com/mcpwatchdog/watchdog/internal/testbed/daemontest"
)

// quietConfig watches one server nobody serves, and no host process.
const quietConfig = "[host]\nprocess = \"\"\nport = 0\n[[server]]\nname = \"mem\"\nurl = \"http://127.0.0.1:9/mcp\"\n"

// serveOnce runs Serve on stateDir until it returns or 10 s pass, for a
// daemon that must refuse to start.
func serveOnce(t *testing.T, cfgPath, stateDir string) error {
	t.Helper()
	cfg, err := config.Load(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err = daemon.Serve(ctx, cfg, stateDir, daemon.Options{Home: t.TempDir()})
	if ctx.Err() != nil {
		t.Fatal("Serve ran on: it accepted what it must refuse")
	}
	return err
}

// plantLink makes path a symbolic link to a 0644 file of its own and
// returns a check that the target kept its content and mode.
func plantLink(t *testing.T, path string) (untouched func()) {
	t.Helper()
	target := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(target, []byte("precious\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chmod(target, 0o644)
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
	return func() {
		t.Helper()
		b, _ := os.ReadFile(target)
		fi, _ := os.Stat(target)
		if string(b) != "precious\n" || fi.Mode().Perm() != 0o644 {
			t.Fatalf("the link's target now holds %q, mode %v", b, fi.Mode().Perm())
		}
	}
}

// TestUnsafeStateDirIsRefusedFirst: measurement A of issue 15. A state
// directory others can write to, or another user's, is refused before
// anything is opened in it; a planted events.jsonl link is refused naming
// the file, and its target is neither written nor chmodded.
func TestUnsafeStateDirIsRefusedFirst(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		spoil   func(t *testing.T, state string) (check func())
		wantErr error
		want    string
	}{
		{"mode 0777", func(t *testing.T, state string) func() {
			mustDo(t, os.Chmod(state, 0o777))
			return emptyDir(t, state)
		}, fsutil.ErrUnsafeDir, "chmod 700"},
		{"owned by nobody", func(t *testing.T, state string) func() {
			mustDo(t, os.Chown(state, 65534, 65534))
			return emptyDir(t, state)
		}, fsutil.ErrUnsafeDir, "uid 65534"},
		{"events.jsonl a symlink", func(t *testing.T, state string) func() {
			return plantLink(t, filepath.Join(state, journal.FileName))
		}, fsutil.ErrSymlink, journal.FileName},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			cfg := daemontest.WriteConfig(t, dir, quietConfig)
			state := filepath.Join(dir, "state")
			mustDo(t, os.Mkdir(state, 0o700))
			check := tt.spoil(t, state)
			err := serveOnce(t, cfg, state)
			if !errors.Is(err, tt.wantErr) || !strings.Contains(err.Error(), state) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Serve = %v; want %v naming %s and %q", err, tt.wantErr, state, tt.want)
			}
			check()
		})
	}
}

// emptyDir returns a check that dir still holds nothing.
func emptyDir(t *testing.T, dir string) func() {
	return func() {
		t.Helper()
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Fatalf("files made in the refused directory: %v", entries)
		}
	}
}

// TestBadCheckpointIsDiscarded: measurement D of issue 15. A follow
// checkpoint cut short, not JSON, of the wrong shape, or planted as a link
// no longer stops the start: it is discarded with a warning naming it (in
// the daemon's log and the journal), and the logs are followed as on a
// first start.
func TestBadCheckpointIsDiscarded(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		plant func(t *testing.T, path string) (check func())
	}{
		{"truncated", writeCheckpoint(`{"version":1,"positions":[{"path":"/var/log/a.log","fingerp`)},
		{"not JSON", writeCheckpoint("\x00\x01 garbage")},
		{"wrong shape", writeCheckpoint(`[{"path":1}]`)},
		{"a symlink", plantLink},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			logPath := filepath.Join(dir, "mem.log")
			cfg := daemontest.WriteConfig(t, dir, quietConfig+fmt.Sprintf("logs = [%q]\n", logPath))
			state := filepath.Join(dir, "state")
			mustDo(t, os.Mkdir(state, 0o700))
			ckpt := filepath.Join(state, daemontest.CheckpointName)
			check := tt.plant(t, ckpt)
			s := startDaemon(t, cfg, state)
			waitWarning(t, state, "the checkpoint's warning", daemontest.CheckpointName)
			if !strings.Contains(s.log.String(), daemontest.CheckpointName) {
				t.Errorf("the daemon's log does not name the checkpoint:\n%s", s.log.String())
			}
			// Followed from here on: a line written now is read and acked.
			daemontest.AppendLine(t, logPath, "2026-12-01T10:00:00Z INFO something")
			daemontest.WaitFor(t, 10*time.Second, "the new line acked in a new checkpoint", func() bool {
				return daemontest.Acked(t, state, logPath) > 0
			})
			check()
		})
	}
}

func writeCheckpoint(body string) func(t *testing.T, path string) func() {
	return func(t *testing.T, path string) func() {
		mustDo(t, os.WriteFile(path, []byte(body), 0o600))
		return func() {}
	}
}

// TestTornJournalLineIsEnded: measurement C of issue 15. After a crash cut
// the journal's last line short, the next start's first record is a line
// of its own: the fragment stays one unreadable line, and every record
// before and after it reads back.
func TestTornJournalLineIsEnded(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := daemontest.WriteConfig(t, dir, quietConfig)
	state := filepath.Join(dir, "state")
	mustDo(t, os.Mkdir(state, 0o700))
	whole := `{"time":"2026-12-01T09:00:00Z","kind":"stopped","server":"","session":"","detail":"watchdog stopped"}` + "\n"
	torn := `{"time":"2026-12-01T09:00:01Z","kind":"sess`
	mustDo(t, os.WriteFile(filepath.Join(state, journal.FileName), []byte(whole+torn), 0o600))
	loaded, err := config.Load(cfg)
	mustDo(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- daemon.Serve(ctx, loaded, state, daemon.Options{Home: t.TempDir()}) }()
	daemontest.WaitFor(t, 20*time.Second, "the control socket", func() bool {
		sctx, scancel := context.WithTimeout(context.Background(), time.Second)
		defer scancel()
		_, err := control.Dial(control.SocketPath(state)).Status(sctx)
		return err == nil
	})
	cancel()
	mustDo(t, <-done)
	var kinds, bad []string
	f, err := os.Open(filepath.Join(state, journal.FileName))
	mustDo(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		rec, err := journal.Decode(sc.Bytes())
		if err != nil {
			bad = append(bad, sc.Text())
			continue
		}
		kinds = append(kinds, string(rec.Kind))
	}
	if len(bad) != 1 || bad[0] != torn {
		t.Fatalf("unreadable lines %q; want only the torn fragment %q", bad, torn)
	}
	if len(kinds) < 3 || kinds[0] != "stopped" || kinds[1] != "started" || kinds[len(kinds)-1] != "stopped" {
		t.Fatalf("records %v; want the old stopped, then this run's started … stopped", kinds)
	}
}

// TestFIFOStoreAndLogDoNotHang: measurement B of issue 15. A store and a
// log that are FIFOs are warnings naming them; the control socket comes up
// and the daemon stops (the helper fails the test after 10 s).
func TestFIFOStoreAndLogDoNotHang(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	storePath, logPath := filepath.Join(dir, "mcp-sessions.json"), filepath.Join(dir, "mem.log")
	mustDo(t, syscall.Mkfifo(storePath, 0o600))
	mustDo(t, syscall.Mkfifo(logPath, 0o600))
	cfg := daemontest.WriteConfig(t, dir, quietConfig+fmt.Sprintf("logs = [%q]\nstore = %q\n", logPath, storePath))
	state := filepath.Join(dir, "state")
	began := time.Now()
	s := startDaemon(t, cfg, state)
	if took := time.Since(began); took > 8*time.Second {
		t.Errorf("the control socket came up after %v", took)
	}
	waitWarning(t, state, "the store's warning", storePath)
	waitWarning(t, state, "the log's warning", logPath)
	for _, w := range []string{storePath, "FIFO"} {
		if !strings.Contains(s.log.String(), w) {
			t.Errorf("the daemon's log does not say %q:\n%s", w, s.log.String())
		}
	}
	stopped := time.Now()
	s.stop(t)
	if took := time.Since(stopped); took > 2*time.Second {
		t.Errorf("the daemon took %v to stop", took)
	}
}

func mustDo(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
