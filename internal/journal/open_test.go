package journal

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwatchdog/watchdog/internal/fsutil"
)

// TestOpenRefusesAPlantedLink: an events.jsonl that is a symbolic link is
// refused with an error naming it; its target keeps its content and mode.
func TestOpenRefusesAPlantedLink(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	target := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(target, []byte("precious\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chmod(target, 0o644)
	if err := os.Symlink(target, filepath.Join(dir, FileName)); err != nil {
		t.Fatal(err)
	}
	j, err := Open(dir, Options{})
	if err == nil {
		j.Write(event(1))
		j.Close()
		t.Fatal("Open went through the link")
	}
	if !errors.Is(err, fsutil.ErrSymlink) || !strings.Contains(err.Error(), filepath.Join(dir, FileName)) {
		t.Fatalf("Open = %v; want ErrSymlink naming %s", err, FileName)
	}
	b, _ := os.ReadFile(target)
	fi, _ := os.Stat(target)
	if string(b) != "precious\n" || fi.Mode().Perm() != 0o644 {
		t.Fatalf("target now %q, mode %v", b, fi.Mode().Perm())
	}
}

// TestOpenRefusesAnUnsafeDir: a state directory another user owns, or
// that others can write to, is refused before anything is created in it.
func TestOpenRefusesAnUnsafeDir(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		make func(dir string) error
	}{
		{"mode 0777", func(dir string) error { return os.Chmod(dir, 0o777) }},
		{"owned by nobody", func(dir string) error { return os.Chown(dir, 65534, 65534) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "state")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := tt.make(dir); err != nil {
				t.Fatal(err)
			}
			j, err := Open(dir, Options{})
			if err == nil {
				j.Close()
				t.Fatal("Open accepted the directory")
			}
			if !errors.Is(err, fsutil.ErrUnsafeDir) || !strings.Contains(err.Error(), dir) {
				t.Fatalf("Open = %v; want ErrUnsafeDir naming %s", err, dir)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Fatalf("created in the refused directory: %v", entries)
			}
		})
	}
}

// TestTornLastLineIsTerminated: a journal whose last line was cut short
// (a crash mid-write) gets a newline at Open, so the first new record is
// a line of its own: the fragment stays one unreadable line, and nothing
// written after it is lost.
func TestTornLastLineIsTerminated(t *testing.T) {
	t.Parallel()
	whole, err := Encode(event(1))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, before string
		unreadable   int
	}{
		{"torn after a whole line", string(whole) + `{"time":"2026-11-30T09:00:0`, 1},
		{"torn first line", `{"time":"2026`, 1},
		{"whole lines", string(whole), 0},
		{"empty", "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			path := filepath.Join(dir, FileName)
			if err := os.WriteFile(path, []byte(tt.before), 0o600); err != nil {
				t.Fatal(err)
			}
			j, err := Open(dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if err := j.Write(event(2)); err != nil {
				t.Fatal(err)
			}
			j.Close()
			b, _ := os.ReadFile(path)
			if !strings.HasPrefix(string(b), tt.before) || !strings.HasSuffix(string(b), "\n") {
				t.Fatalf("journal %q does not keep %q and end in a newline", b, tt.before)
			}
			bad, last := 0, ""
			for _, line := range splitLines(b) {
				if rec, err := Decode(line); err != nil {
					bad++
				} else {
					last = rec.Detail
				}
			}
			if bad != tt.unreadable || last != "2" {
				t.Fatalf("%d unreadable lines (want %d), last record %q (want the new one): %q", bad, tt.unreadable, last, b)
			}
			recs, err := ReadTail(dir, 1<<20)
			if err != nil || len(recs) == 0 || recs[len(recs)-1].Detail != "2" {
				t.Fatalf("ReadTail: %v, %v; want the new record last", recs, err)
			}
		})
	}
}
