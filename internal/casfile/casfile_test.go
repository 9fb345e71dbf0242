package casfile

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

func write(t *testing.T, path, text string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

func mustRead(t *testing.T, path string) Snapshot {
	t.Helper()
	s, err := Read(path, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A file reached through a symbolic link (a dotfile manager's) is written
// at its target, the link stays a link, and the mode stays the file's.
func TestReplaceKeepsLinkAndMode(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	target := filepath.Join(dir, "dotfiles", "mcp.json")
	if err := os.MkdirAll(filepath.Dir(target), 0o700); err != nil {
		t.Fatal(err)
	}
	write(t, target, "old", 0o640)
	link := filepath.Join(dir, "mcp.json")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := Replace(mustRead(t, link), []byte("new"), nil); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link is no longer a link: %v %v", fi, err)
	}
	fi, err := os.Stat(target)
	if b, _ := os.ReadFile(target); string(b) != "new" || err != nil || fi.Mode().Perm() != 0o640 {
		t.Fatalf("target %q, mode %v, %v", b, fi.Mode(), err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "dotfiles", ".*")); len(left) != 0 {
		t.Errorf("temp files left: %v", left)
	}
}

// A read-only file is its owner's "leave it": refused, untouched, and
// the message says how to allow it. Measured before: adopt replaced a
// 0444 file silently.
func TestReadOnlyRefused(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "settings.json")
	write(t, path, "keep", 0o444)
	err := Replace(mustRead(t, path), []byte("new"), nil)
	if !errors.Is(err, ErrReadOnly) || !bytes.Contains([]byte(err.Error()), []byte("chmod u+w")) {
		t.Fatalf("Replace of a 0444 file: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "keep" {
		t.Fatalf("the read-only file now holds %q", b)
	}
}

// A change made after the snapshot is kept, and Replace says so.
func TestChangeSinceReadKept(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "f")
	write(t, path, "v1", 0o600)
	s := mustRead(t, path)
	write(t, path, "v2 (the host's)", 0o600)
	if err := Replace(s, []byte("ours"), nil); !errors.Is(err, ErrConflict) {
		t.Fatalf("Replace after a change: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "v2 (the host's)" {
		t.Fatalf("the host's change is gone: %q", b)
	}
}

// A file that does not exist is created, unless it appeared meanwhile.
func TestCreateOnlyWhenStillMissing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "new.json")
	s := mustRead(t, path)
	if s.Exists {
		t.Fatal("a missing file read as existing")
	}
	if err := Replace(s, []byte("a"), nil); err != nil {
		t.Fatal(err)
	}
	if err := Replace(s, []byte("b"), nil); !errors.Is(err, ErrConflict) {
		t.Fatalf("creating over a file made meanwhile: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "a" {
		t.Fatalf("file holds %q", b)
	}
}

// TestNoWriteOfAConcurrentWriterLost: another program rewrites the file
// every millisecond, each time adding a key of its own to what it read
// (as Claude Code rewrites ~/.claude.json), by temp file and rename. Meanwhile
// this side edits its own key again and again, retrying on ErrConflict.
// Every key the other program wrote is in the file at the end, but for
// the one instant the package's doc names: a write the other program built
// on bytes of ours that a conflict then gave back (it read them between
// the exchange and the give-back, a few microseconds, which a loaded
// machine may stretch). Each attempt of ours writes its own number, so the
// test tells such a read from a lost write of any other cause, which fails.
func TestNoWriteOfAConcurrentWriterLost(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "claude.json")
	write(t, path, `{}`, 0o600)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var other []otherWrite
	wg.Go(func() { other = otherWriter(ctx, t, path) })
	kept, conflicts := ourEdits(t, path, 300)
	cancel()
	wg.Wait()
	var m map[string]any
	b, _ := os.ReadFile(path)
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	lost, inInstant := 0, 0
	for k, w := range other {
		if _, ok := m[fmt.Sprint("w", k)]; !ok {
			lost++
		}
		if w.builtOn >= 0 && !kept[w.builtOn] {
			inInstant++
		}
	}
	t.Logf("the other program wrote %d times; %d conflicts retried; %d of its writes built on bytes given back", len(other), conflicts, inInstant)
	if lost > inInstant {
		t.Fatalf("%d of the other program's %d writes lost, %d of them outside the instant the package's doc names", lost, len(other), lost-inInstant)
	}
}

// ourEdits writes key "ours" n times, each attempt a number of its own,
// retrying on ErrConflict; it returns the attempts Replace kept.
func ourEdits(t *testing.T, path string, n int) (kept map[int]bool, conflicts int) {
	kept = map[int]bool{}
	attempt := 0
	for range n {
		for {
			s := mustRead(t, path)
			var m map[string]any
			if err := json.Unmarshal(s.Data, &m); err != nil {
				t.Fatal(err)
			}
			attempt++
			m["ours"] = attempt
			b, _ := json.Marshal(m)
			err := Replace(s, b, nil)
			if err == nil {
				kept[attempt] = true
				break
			}
			if !errors.Is(err, ErrConflict) {
				t.Fatal(err)
			}
			conflicts++
		}
	}
	return kept, conflicts
}

// otherWrite is one write of the other program: builtOn is the attempt
// of ours it read in the file (-1: none).
type otherWrite struct{ builtOn int }

// otherWriter adds key w<n> to the file every millisecond until ctx ends,
// by temp file and rename, and returns its writes.
func otherWriter(ctx context.Context, t *testing.T, path string) []otherWrite {
	var writes []otherWrite
	for ctx.Err() == nil {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Error(err)
			return writes
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Error(err)
			return writes
		}
		w := otherWrite{builtOn: -1}
		if v, ok := m["ours"].(float64); ok {
			w.builtOn = int(v)
		}
		m[fmt.Sprint("w", len(writes))] = true
		out, _ := json.Marshal(m)
		tmp := path + ".other"
		if err = os.WriteFile(tmp, out, 0o600); err == nil {
			err = os.Rename(tmp, path)
		}
		if err != nil {
			t.Error(err)
			return writes
		}
		writes = append(writes, w)
		time.Sleep(time.Millisecond)
	}
	return writes
}

// A file of another user, written by root (the watchdog run with sudo,
// or a test as root), stays that user's; as that user, a file of another
// is refused with the reason.
func TestOwnerKept(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "mcp.json")
	write(t, path, "old", 0o640)
	if os.Geteuid() != 0 {
		if err := Replace(Snapshot{Path: path, Target: path, Data: []byte("old"), Exists: true, Mode: 0o640, UID: os.Geteuid() + 1}, []byte("new"), nil); !errors.Is(err, ErrNotOwner) {
			t.Fatalf("a file of another user: %v", err)
		}
		return
	}
	if err := os.Chown(path, 4242, 4343); err != nil {
		t.Fatal(err)
	}
	if err := Replace(mustRead(t, path), []byte("new"), nil); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if uid, gid := owner(fi); uid != 4242 || gid != 4343 || fi.Mode().Perm() != 0o640 {
		t.Fatalf("after Replace as root: uid %d gid %d mode %v; want 4242 4343 0640", uid, gid, fi.Mode())
	}
}
