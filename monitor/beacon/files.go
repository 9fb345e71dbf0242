package beacon

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Why a beacon file is not read. The messages say what to do: they reach
// the user through the log.
var (
	errNotRegular = errors.New("not a regular file (a symlink, directory or device): " +
		"beacons are plain files the client writes itself; remove it")
	errForeign = errors.New("owned by another user, so it cannot be the client's; remove it")
	// The client writes each beacon afresh; a second name means the file
	// is also something else, which must be neither read nor chmodded.
	errLinked = errors.New("hard-linked elsewhere, so it is not a beacon the client wrote; remove it")
	// errRaced: the file was replaced between the Lstat and the open, as a
	// client's rename-over does; not worth a warning, only a second look.
	errRaced = errors.New("replaced while being read")
)

// load reads and parses the beacon at path, which Lstat described as fi,
// after checking it is a regular file of ours, and makes it private.
func (l *loop) load(path string, fi fs.FileInfo) (Client, error) {
	if !fi.Mode().IsRegular() {
		return Client{}, errNotRegular
	}
	if uid, known := ownerOf(fi); known && uid != l.uid {
		return Client{}, fmt.Errorf("%w (uid %d)", errForeign, uid)
	}
	if links(fi) > 1 {
		return Client{}, errLinked
	}
	f, err := openNoFollow(path)
	if isMissing(err) {
		return Client{}, errRaced
	}
	if err != nil {
		// A symlink swapped in after the Lstat fails here (ELOOP).
		return Client{}, fmt.Errorf("open: %w", err)
	}
	defer func() { _ = f.Close() }()
	ffi, err := f.Stat()
	if err != nil {
		return Client{}, fmt.Errorf("stat: %w", err)
	}
	if !os.SameFile(fi, ffi) {
		return Client{}, errRaced
	}
	if !l.private(path, ffi, 0o600, f.Chmod) {
		return Client{}, errors.New("others may read it")
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxSize+1))
	if err != nil {
		return Client{}, fmt.Errorf("read: %w", err)
	}
	return Parse(data)
}

// warnOnce logs msg for key (a path) unless the same was last logged for
// it: a file or directory that stays wrong is said once, not every Interval.
// args must never hold a full session id.
func (l *loop) warnOnce(key, msg string, args ...any) {
	said := msg + fmt.Sprint(args...)
	if l.warned[key] == said {
		return
	}
	l.warned[key] = said
	l.log.Warn(msg, args...)
}

// forgetWarnings drops what was said about files no longer in the
// directory (names is its listing), so a file that comes back wrong is
// said again, and the map stays as small as the directory.
func (l *loop) forgetWarnings(names []string) {
	here := make(map[string]bool, len(names))
	for _, n := range names {
		here[n] = true
	}
	for key := range l.warned {
		if key != l.dir && !here[filepath.Base(key)] {
			delete(l.warned, key)
		}
	}
}
