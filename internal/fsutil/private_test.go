package fsutil

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// nobody owns the directories of the "another user's" cases; the tests
// run as root, who can chown to it.
const nobody = 65534

func TestPrivateDir(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		setup   func(t *testing.T, dir string) // dir does not exist yet
		wantErr error
		words   []string // the message names these
	}{
		{"missing: created 0700", func(*testing.T, string) {}, nil, nil},
		{"ours, 0700", func(t *testing.T, d string) { mkdir(t, d, 0o700) }, nil, nil},
		{"ours, 0755", func(t *testing.T, d string) { mkdir(t, d, 0o755) }, nil, nil},
		{"world-writable", func(t *testing.T, d string) { mkdir(t, d, 0o777) }, ErrUnsafeDir, []string{"0777", "chmod 700"}},
		{"group-writable", func(t *testing.T, d string) { mkdir(t, d, 0o770) }, ErrUnsafeDir, []string{"0770", "chmod 700"}},
		{"another user's", func(t *testing.T, d string) {
			mkdir(t, d, 0o700)
			must(t, os.Chown(d, nobody, nobody))
		}, ErrUnsafeDir, []string{"uid 65534", "--state-dir"}},
		{"a file", func(t *testing.T, d string) { must(t, os.WriteFile(d, nil, 0o600)) }, syscall.ENOTDIR, []string{"not a directory"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "state")
			tt.setup(t, dir)
			err := PrivateDir(dir)
			if tt.wantErr == nil {
				if err != nil {
					t.Fatal(err)
				}
				if fi, err := os.Stat(dir); err != nil || !fi.IsDir() || fi.Mode().Perm()&0o022 != 0 {
					t.Fatalf("dir after PrivateDir: %v, %v", fi, err)
				}
				return
			}
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("PrivateDir = %v, want %v", err, tt.wantErr)
			}
			for _, w := range append(tt.words, dir) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not name %q", err, w)
				}
			}
		})
	}
	t.Run("created 0700", func(t *testing.T) {
		t.Parallel()
		dir := filepath.Join(t.TempDir(), "a", "state")
		must(t, PrivateDir(dir))
		if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o700 {
			t.Fatalf("created %v, want 0700", fi.Mode().Perm())
		}
	})
}

func TestOpenPrivateRefusesLinksAndSpecialFiles(t *testing.T) {
	t.Parallel()
	flags := map[string]int{
		"append":    os.O_WRONLY | os.O_APPEND | os.O_CREATE,
		"read":      os.O_RDONLY,
		"lock-like": os.O_RDONLY | os.O_CREATE,
	}
	for fname, flag := range flags {
		t.Run(fname+": symlink", func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			target := filepath.Join(t.TempDir(), "victim")
			must(t, os.WriteFile(target, []byte("precious\n"), 0o644))
			must(t, os.Chmod(target, 0o644))
			path := filepath.Join(dir, "events.jsonl")
			must(t, os.Symlink(target, path))
			f, err := OpenPrivate(path, flag)
			if err == nil {
				f.Close()
				t.Fatal("a symlink was opened")
			}
			if !errors.Is(err, ErrSymlink) || !strings.Contains(err.Error(), path) {
				t.Fatalf("error %v: want ErrSymlink naming %s", err, path)
			}
			untouched(t, target, "precious\n", 0o644)
		})
		t.Run(fname+": FIFO", func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "watchdog.lock")
			must(t, syscall.Mkfifo(path, 0o600))
			err := inTime(t, func() error {
				f, err := OpenPrivate(path, flag)
				if err == nil {
					f.Close()
				}
				return err
			})
			if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "FIFO") {
				t.Fatalf("error %v: want ErrNotRegular naming a FIFO", err)
			}
		})
	}
}

func TestOpenPrivateTightensThroughTheDescriptor(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	old := filepath.Join(dir, "old")
	must(t, os.WriteFile(old, []byte("x"), 0o644))
	must(t, os.Chmod(old, 0o644))
	for _, tt := range []struct {
		path string
		flag int
		want fs.FileMode
	}{
		{filepath.Join(dir, "new"), os.O_WRONLY | os.O_CREATE, 0o600},
		{old, os.O_RDONLY, 0o644}, // reading changes nothing
		{old, os.O_WRONLY | os.O_APPEND, 0o600},
	} {
		f, err := OpenPrivate(tt.path, tt.flag)
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
		if fi, _ := os.Stat(tt.path); fi.Mode().Perm() != tt.want {
			t.Errorf("%s flag %#x: mode %v, want %v", tt.path, tt.flag, fi.Mode().Perm(), tt.want)
		}
	}
}

func TestReadPrivateAndReadRegular(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	reg := filepath.Join(dir, "reg")
	must(t, os.WriteFile(reg, []byte("hello"), 0o600))
	link := filepath.Join(dir, "link")
	must(t, os.Symlink(reg, link))
	fifo := filepath.Join(dir, "fifo")
	must(t, syscall.Mkfifo(fifo, 0o600))
	tests := []struct {
		name    string
		read    func(string, int64) ([]byte, error)
		path    string
		max     int64
		want    string
		wantErr error
	}{
		{"private regular", ReadPrivate, reg, 10, "hello", nil},
		{"private link", ReadPrivate, link, 10, "", ErrSymlink},
		{"private FIFO", ReadPrivate, fifo, 10, "", ErrNotRegular},
		{"private missing", ReadPrivate, filepath.Join(dir, "none"), 10, "", fs.ErrNotExist},
		{"regular regular", ReadRegular, reg, 10, "hello", nil},
		{"regular link followed", ReadRegular, link, 10, "hello", nil},
		{"regular FIFO", ReadRegular, fifo, 10, "", ErrNotRegular},
		{"regular directory", ReadRegular, dir, 10, "", ErrNotRegular},
		{"too large", ReadRegular, reg, 4, "", nil},
	}
	for _, tt := range tests {
		var got []byte
		err := inTime(t, func() (err error) { got, err = tt.read(tt.path, tt.max); return err })
		switch {
		case tt.want != "":
			if err != nil || string(got) != tt.want {
				t.Errorf("%s: %q, %v; want %q", tt.name, got, err, tt.want)
			}
		case tt.wantErr != nil:
			if !errors.Is(err, tt.wantErr) {
				t.Errorf("%s: %v, want %v", tt.name, err, tt.wantErr)
			}
		default:
			if err == nil || !strings.Contains(err.Error(), "larger than") {
				t.Errorf("%s: %v, want a size error", tt.name, err)
			}
		}
	}
}

// inTime runs fn, failing the test when it blocks for 5 s (a FIFO open).
func inTime(t *testing.T, fn func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- fn() }()
	select {
	case err := <-done:
		return err
	case <-time.After(5 * time.Second):
		t.Fatal("blocked for 5 s")
		return nil
	}
}

func untouched(t *testing.T, path, content string, mode fs.FileMode) {
	t.Helper()
	b, err := os.ReadFile(path)
	must(t, err)
	fi, err := os.Stat(path)
	must(t, err)
	if string(b) != content || fi.Mode().Perm() != mode {
		t.Fatalf("the link's target changed: %q, mode %v; want %q, %v", b, fi.Mode().Perm(), content, mode)
	}
}

func mkdir(t *testing.T, dir string, mode fs.FileMode) {
	t.Helper()
	must(t, os.Mkdir(dir, mode))
	must(t, os.Chmod(dir, mode)) // past the umask
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
