package fsutil

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Sentinel errors of the state-file and input-file checks; callers branch
// on them (a bad cache is discarded, a bad journal stops the start).
var (
	// ErrUnsafeDir: the state directory belongs to another user or others
	// can write to it, so they could plant links or files in it.
	ErrUnsafeDir = errors.New("directory is not private")
	// ErrSymlink: a state file is a symbolic link, which is never followed.
	ErrSymlink = errors.New("is a symbolic link, which the watchdog does not follow in its state directory")
	// ErrNotRegular: a FIFO, device, socket or directory where a regular
	// file belongs; opening it is refused rather than blocking on it.
	ErrNotRegular = errors.New("is not a regular file")
	// ErrTooLarge: ReadPrivate or ReadRegular met more than their max.
	ErrTooLarge = errors.New("file too large")
)

// PrivateFlags are the open flags OpenPrivate adds, for a state file that
// a library opens by path (the instance lock): no link followed, no
// blocking on a FIFO.
const PrivateFlags = oNoFollow | oNonBlock

// PrivateDir creates dir (0700, parents too) when missing and checks that
// it is the caller's alone: owned by the effective uid, not writable by
// group or others. It runs before anything is opened in dir: in a
// directory others can write to, every later check would come too late.
// An existing directory is never chmodded (it may be shared on purpose).
func PrivateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("state directory %s: %w", dir, err)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("state directory %s: %w", dir, err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("state directory %s: %w (it is a %s)", dir, ErrNotRegular, TypeName(fi.Mode()))
	}
	if uid, ok := ownerOf(fi); ok && uid != os.Geteuid() {
		return fmt.Errorf("%w: state directory %s belongs to uid %d, not to you (uid %d), so its owner could plant links there; "+
			"use a directory of your own (--state-dir or WATCHDOG_STATE_DIR)", ErrUnsafeDir, dir, uid, os.Geteuid())
	}
	if perm := fi.Mode().Perm(); perm&0o022 != 0 {
		return fmt.Errorf("%w: state directory %s has mode %04o, so group or others can plant links or files there; "+
			"run `chmod 700 %s`, or use another directory (--state-dir or WATCHDOG_STATE_DIR)", ErrUnsafeDir, dir, perm, dir)
	}
	return nil
}

// OpenPrivate opens a file of the state directory: never through a
// symbolic link (ErrSymlink), never blocking on a FIFO, and only a regular
// file (ErrNotRegular, checked on the open descriptor). When flag creates
// or writes, the file is made 0600 through the descriptor, so a file left
// wider by an older version is tightened and nothing else is touched.
func OpenPrivate(path string, flag int) (*os.File, error) {
	if oNoFollow == 0 { // no O_NOFOLLOW: look first, then open
		if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return nil, fmt.Errorf("open %s: %w; remove it", path, ErrSymlink)
		}
	}
	f, err := os.OpenFile(path, flag|oNoFollow|oNonBlock, 0o600)
	if err != nil {
		// Say what is there: ELOOP for a link, ENXIO for a FIFO opened
		// to write with no reader, would not tell the user.
		if fi, lerr := os.Lstat(path); lerr == nil {
			switch {
			case fi.Mode()&fs.ModeSymlink != 0:
				return nil, fmt.Errorf("open %s: %w; remove it", path, ErrSymlink)
			case !fi.Mode().IsRegular():
				return nil, fmt.Errorf("open %s: %w (it is a %s); remove it", path, ErrNotRegular, TypeName(fi.Mode()))
			}
		}
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("open %s: %w (it is a %s); remove it", path, ErrNotRegular, TypeName(fi.Mode()))
	}
	if err == nil && flag&(os.O_WRONLY|os.O_RDWR|os.O_CREATE) != 0 && fi.Mode().Perm() != 0o600 {
		err = f.Chmod(0o600)
	}
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	return f, nil
}

// ReadPrivate reads a state file as OpenPrivate opens it, up to max bytes
// (a longer file is an error). A missing file is fs.ErrNotExist.
func ReadPrivate(path string, max int64) ([]byte, error) {
	f, err := OpenPrivate(path, os.O_RDONLY)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readAtMost(f, path, max)
}

// OpenRegular opens an input the watchdog does not own (a config, a store,
// a log) for reading: symbolic links are followed, as users make them,
// but the open never blocks on a FIFO and anything but a regular file is
// ErrNotRegular.
func OpenRegular(path string) (*os.File, error) {
	// Look first: opening a device can do things (a tape rewinds). The
	// descriptor is checked again, for a file swapped in meanwhile.
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s %w (it is a %s)", path, ErrNotRegular, TypeName(fi.Mode()))
	}
	f, err := os.OpenFile(path, os.O_RDONLY|oNonBlock, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("%s %w (it is a %s)", path, ErrNotRegular, TypeName(fi.Mode()))
	}
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	return f, nil
}

// ReadRegular reads an input as OpenRegular opens it, up to max bytes (a
// longer file is an error).
func ReadRegular(path string, max int64) ([]byte, error) {
	f, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readAtMost(f, path, max)
}

func readAtMost(f *os.File, path string, max int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("read %s: %w: larger than %d bytes; not read", path, ErrTooLarge, max)
	}
	return data, nil
}

// TypeName names what kind of file m says, for messages.
func TypeName(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "directory"
	case m&fs.ModeNamedPipe != 0:
		return "FIFO"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeCharDevice != 0:
		return "character device"
	case m&fs.ModeDevice != 0:
		return "device"
	case m&fs.ModeSymlink != 0:
		return "symbolic link"
	case m.IsRegular():
		return "regular file"
	}
	return "special file"
}
