package beacon

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"
)

// TestWatchSkipsUnsafeFiles: beside one good beacon, every file that is not
// a regular, well-formed version-1 beacon of the pid in its name is skipped
// with one warning however often the directory is read, and left as it is
// (see plantUnsafe). Names that are not beacons' are ignored without a word.
func TestWatchSkipsUnsafeFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := startChild(t)
	writeBeacon(t, dir, client(good.pid, testID("good")))
	unsafe, target := plantUnsafe(t, dir)
	ignored := []string{writeRaw(t, dir, "notes.txt", []byte("x")), writeRaw(t, dir, "0042.json", []byte("x"))}
	before, err := os.ReadFile(target)
	if err != nil {
		t.Fatal(err)
	}

	w := startWatch(t, dir, 50*time.Millisecond)
	if u := w.next(t); !slices.Equal(pids(u), []int32{good.pid}) {
		t.Fatalf("pids %v, want only the good beacon's %d", pids(u), good.pid)
	}
	w.quiet(t, 400*time.Millisecond) // eight reads of the directory

	for path, says := range unsafe {
		if n := w.log.count("skipped", path, says); n != 1 {
			t.Errorf("%s: %d warnings saying %q, want 1", filepath.Base(path), n, says)
		}
		if !exists(path) {
			t.Errorf("%s was removed; a file that is not understood is left alone", filepath.Base(path))
		}
	}
	for _, p := range ignored {
		if n := w.log.count(p); n != 0 || !exists(p) {
			t.Errorf("%s: %d log lines, exists %v; want it ignored", filepath.Base(p), n, exists(p))
		}
	}
	after, err := os.ReadFile(target)
	fi, _ := os.Stat(target)
	if err != nil || !bytes.Equal(before, after) || fi.Mode().Perm() != 0o644 {
		t.Fatalf("the symlink's target was touched (mode %v)", fi.Mode().Perm())
	}
}

// plantUnsafe puts into dir one of each file a beacon must not be, and
// returns them (path → what the warning says) and the symlink's target, a
// valid 0644 beacon of a live process outside dir: a symlink, a second
// name of another file, a pid mismatch (both pids live), a newer version,
// garbage, a directory.
func plantUnsafe(t *testing.T, dir string) (map[string]string, string) {
	t.Helper()
	elsewhere := t.TempDir()
	named, linked, other := startChild(t), startChild(t), startChild(t)
	target := writeBeacon(t, elsewhere, client(linked.pid, testID("link")))
	if err := os.Chmod(target, 0o644); err != nil {
		t.Fatal(err)
	}
	symlink := filepath.Join(dir, beaconName(linked.pid))
	if err := os.Symlink(target, symlink); err != nil {
		t.Fatal(err)
	}
	hardlink := filepath.Join(dir, "999994.json")
	if err := os.Link(writeRaw(t, elsewhere, "private", []byte("not for the watchdog")), hardlink); err != nil {
		t.Fatal(err)
	}
	subdir := filepath.Join(dir, "999993.json")
	if err := os.Mkdir(subdir, 0o700); err != nil {
		t.Fatal(err)
	}
	return map[string]string{
		symlink:  "not a regular file",
		hardlink: "hard-linked elsewhere",
		subdir:   "not a regular file",
		writeRaw(t, dir, beaconName(named.pid), encode(client(other.pid, testID("mismatch")))): "not the one in its name",
		writeRaw(t, dir, "999991.json", []byte(`{"version":2,"pid":999991,"clients":{}}`)):     "version 2",
		writeRaw(t, dir, "999992.json", []byte(`{"version":1,"pid":`)):                         "malformed",
	}, target
}

// TestWatchMakesPrivate: a directory and a beacon others could read are made
// 0700 and 0600, said once each, and the beacon still counts.
func TestWatchMakesPrivate(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "clients")
	c := startChild(t)
	path := writeBeacon(t, dir, client(c.pid, testID("loose")))
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	w := startWatch(t, dir, 50*time.Millisecond)
	if u := w.next(t); !holds(u, c.pid, testID("loose")) {
		t.Fatalf("Update %+v, want the beacon reported", u)
	}
	w.quiet(t, 300*time.Millisecond)

	for _, tc := range []struct {
		path string
		want os.FileMode
	}{{dir, 0o700}, {path, 0o600}} {
		fi, err := os.Stat(tc.path)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != tc.want {
			t.Errorf("%s: mode %v, want %v", tc.path, got, tc.want)
		}
		if n := w.log.count("made it private", "path="+tc.path+" "); n != 1 {
			t.Errorf("%s: said %d times, want once; log:\n%s", tc.path, n, w.log)
		}
	}
}

// TestWatchForeignDirectory: a directory owned by another user is not
// believed: none of its beacons counts, nothing in it is changed, and the
// warning (which says what to do) comes once. The daemon is made to run as
// another uid, which needs no root.
func TestWatchForeignDirectory(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "clients")
	c := startChild(t)
	path := writeBeacon(t, dir, client(c.pid, testID("foreign")))
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	other := os.Geteuid() + 1
	w := startAs(t, dir, other)
	if u := w.next(t); len(u.Clients) != 0 {
		t.Fatalf("Update %+v, want no client from another user's directory", u)
	}
	w.quiet(t, 300*time.Millisecond)
	if n := w.log.count("belongs to another user", "chown", "uid="+strconv.Itoa(other)); n != 1 {
		t.Fatalf("%d warnings, want one saying what to do; log:\n%s", n, w.log)
	}
	fi, err := os.Stat(dir)
	if err != nil || fi.Mode().Perm() != 0o755 || !exists(path) {
		t.Fatalf("another user's directory was changed: %v, %v, beacon there %v", fi.Mode().Perm(), err, exists(path))
	}
}
