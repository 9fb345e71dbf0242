// Package casfile replaces a file that another program also writes (a
// host's own config file, which the host rewrites while it runs) without
// losing that program's changes: compare and swap, as git's lockfile and
// renameio do it, made atomic where the kernel allows.
//
// Read takes a Snapshot: the bytes, and what a rewrite must keep (mode,
// owner, the target of a symbolic link). Replace writes the new bytes
// beside the target, then swaps them in with one atomic exchange
// (renameat2 RENAME_EXCHANGE on Linux, renamex_np RENAME_SWAP on macOS)
// and looks at what it swapped out: when that is not the snapshot's bytes,
// another writer came in between, so it swaps back and fails with
// ErrConflict, and nothing of theirs is lost. Where the file system has no
// exchange it compares just before a plain rename, which leaves a window
// of microseconds instead of none.
//
// What no scheme without the other program's lock can exclude: a program
// that writes in place (open, truncate, write) and opened the file just
// before the swap writes into the file swapped out. Hosts and editors
// replace their files by temp file and rename; for them one instant is
// left: between the exchange and the swap back our bytes are in place, and
// a writer that reads the file then builds its next write on them,
// overwriting its own last change. Replace tells a rename writer's file by
// one lstat and swaps it back at once, before reading anything, so that
// instant is a few microseconds; only the program's own lock would close it.
package casfile

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/mcpwatchdog/watchdog/internal/fsutil"
)

// Errors callers branch on.
var (
	// ErrConflict: the file changed since its snapshot; nothing was written.
	ErrConflict = errors.New("changed since it was read")
	// ErrReadOnly: the file's owner has made it read-only.
	ErrReadOnly = errors.New("read-only")
	// ErrNotOwner: the file belongs to another user, whom a rewrite by this
	// one would make it lose.
	ErrNotOwner = errors.New("belongs to another user")
)

// Snapshot is a file as it was read.
type Snapshot struct {
	// Path is the file as named; Target the file a symbolic link there
	// leads to (Path itself when it is none): the file that is replaced.
	Path, Target string
	Data         []byte
	// Exists is false for a file not there yet (Data is then empty).
	Exists bool
	Mode   fs.FileMode // permission bits
	UID    int         // -1 where the system does not say
	GID    int
	stat   fs.FileInfo // as read: a cheap look for a change before the swap
}

// Read takes a snapshot of path, at most max bytes (a larger file is an
// error). A missing file is a snapshot that does not exist.
func Read(path string, max int64) (Snapshot, error) {
	s := Snapshot{Path: path, Target: path, Mode: 0o600, UID: -1, GID: -1}
	target, err := filepath.EvalSymlinks(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return s, nil
	case err != nil:
		return s, fmt.Errorf("reading %s: %w", path, err)
	}
	s.Target = target
	data, err := fsutil.ReadRegular(target, max)
	if err != nil {
		return s, fmt.Errorf("reading %s: %w", path, err)
	}
	fi, err := os.Stat(target)
	if err != nil {
		return s, fmt.Errorf("reading %s: %w", path, err)
	}
	s.Data, s.Exists, s.Mode, s.stat = data, true, fi.Mode().Perm(), fi
	s.UID, s.GID = owner(fi)
	return s, nil
}

// Writable says why Replace would refuse the file, nil when it would not:
// a read-only file (its owner's write bit off) is the owner's "leave it",
// and a file of another user would become this user's.
func (s Snapshot) Writable() error {
	if !s.Exists {
		return nil
	}
	if s.Mode&0o200 == 0 {
		return fmt.Errorf("%s is %w (mode %#o): make it writable (chmod u+w %s) to let the watchdog edit it, or leave it as it is",
			s.Path, ErrReadOnly, s.Mode, strconv.Quote(s.Path))
	}
	if euid := os.Geteuid(); s.UID >= 0 && euid != 0 && s.UID != euid {
		return fmt.Errorf("%s %w (uid %d): run the watchdog as that user", s.Path, ErrNotOwner, s.UID)
	}
	return nil
}

// Options are Replace's; nil is the real thing. drill is empty in a
// release build; a build with the watchdogdebug tag gives it a fault
// drill (drill_debug.go).
type Options struct {
	//lint:ignore U1000 empty in a release build, the drills in a debug one
	drill
}

// Replace writes data in place of the snapshot's file when the file still
// holds the snapshot's bytes, keeping its mode and owner; otherwise it
// writes nothing and fails with ErrConflict. A snapshot of a missing file
// creates it, unless one has appeared since.
func Replace(s Snapshot, data []byte, o *Options) error {
	if err := s.Writable(); err != nil {
		return err
	}
	tmp, err := writeTemp(s, data, o)
	if err != nil {
		return err
	}
	defer os.Remove(tmp) // what is left there is not the file's
	if err := o.fault("swap"); err != nil {
		return fmt.Errorf("replacing %s: %w", s.Path, err)
	}
	if !s.Exists {
		return create(s, tmp)
	}
	err = swap(s, tmp, data)
	if err == nil {
		fsutil.SyncDir(filepath.Dir(s.Target))
	}
	return err
}

// writeTemp writes data beside the target with the file's mode and owner.
func writeTemp(s Snapshot, data []byte, o *Options) (string, error) {
	if err := o.fault("write"); err != nil {
		return "", fmt.Errorf("writing %s: %w", s.Path, err)
	}
	f, err := os.CreateTemp(filepath.Dir(s.Target), "."+filepath.Base(s.Target)+".watchdog*")
	if err != nil {
		return "", fmt.Errorf("writing %s: %w", s.Path, err)
	}
	err = f.Chmod(s.Mode)
	if err == nil && s.UID >= 0 && os.Geteuid() == 0 {
		err = f.Chown(s.UID, s.GID) // root writing a user's file: it stays theirs
	}
	if err == nil {
		_, err = f.Write(data)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(f.Name())
		return "", fmt.Errorf("writing %s: %w", s.Path, err)
	}
	return f.Name(), nil
}

// create links the new file into place only if none is there yet.
func create(s Snapshot, tmp string) error {
	if err := os.Link(tmp, s.Target); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("%s: %w (it was created meanwhile)", s.Path, ErrConflict)
		}
		return fmt.Errorf("creating %s: %w", s.Path, err)
	}
	return nil
}

// swap exchanges tmp (holding data) with the target and keeps the result
// only when what it took out is the snapshot's bytes. A look at the file
// just before (a writer's rename makes a new file; one writing in place
// moves its time or size) fails early without ever showing data to a
// reader: a program that read data in the instant before it is swapped
// back would write it over its own change.
func swap(s Snapshot, tmp string, data []byte) error {
	if fi, err := os.Stat(s.Target); err != nil || !fsutil.Unchanged(fi, s.stat) {
		return fmt.Errorf("%s: %w", s.Path, ErrConflict)
	}
	err := exchange(tmp, s.Target)
	if errors.Is(err, errNoExchange) {
		return compareAndRename(s, tmp)
	}
	if err != nil {
		return fmt.Errorf("replacing %s: %w", s.Path, err)
	}
	// What was there until the exchange. While it is looked at, data is
	// in place for every reader, and a writer that reads it then writes
	// over its own last change: a new file (a writer's rename) is told by
	// one stat and given back at once, the bytes read only when the file
	// is still the snapshot's.
	if fi, err := os.Lstat(tmp); err == nil && fsutil.Unchanged(fi, s.stat) {
		if out, err := os.ReadFile(tmp); err == nil && bytes.Equal(out, s.Data) {
			return nil
		}
	}
	// Another writer came in between: give them their file back.
	if berr := exchange(tmp, s.Target); berr != nil {
		return fmt.Errorf("replacing %s: another program wrote it meanwhile, and putting its version back failed (%v); it is at %s now: %w",
			s.Path, berr, tmp, ErrConflict)
	}
	if back, rerr := os.ReadFile(tmp); rerr == nil && !bytes.Equal(back, data) {
		// A third write landed in the instant between: it is the newest.
		_ = exchange(tmp, s.Target)
	}
	return fmt.Errorf("%s: %w", s.Path, ErrConflict)
}

// compareAndRename is swap where there is no exchange: compare, then rename.
func compareAndRename(s Snapshot, tmp string) error {
	now, err := fsutil.ReadRegular(s.Target, int64(len(s.Data))+1)
	if err != nil || !bytes.Equal(now, s.Data) {
		return fmt.Errorf("%s: %w", s.Path, ErrConflict)
	}
	if err := os.Rename(tmp, s.Target); err != nil {
		return fmt.Errorf("replacing %s: %w", s.Path, err)
	}
	return nil
}
