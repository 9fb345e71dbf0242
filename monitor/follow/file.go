package follow

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/fsutil"
)

// errReplaced: a polled file's path names another file now; checkPath
// retires it.
var errReplaced = errors.New("replaced under its name")

// errRewritten: the file was truncated or rewritten between refresh and
// read; the chunk read was dropped and the file is read again from 0.
var errRewritten = errors.New("truncated or rewritten while read")

// file is one followed file: an open descriptor and how far it was read.
// The descriptor stays open across renames and deletion, so a rotated file
// can be read to its end. A polled file (over the descriptor budget) holds
// its descriptor only during a pass; between passes fd is nil.
type file struct {
	tag, path string
	target    string // where path points, when it is a symbolic link (links.go)
	fd        *os.File
	polled    bool
	fi        os.FileInfo // from the open descriptor: identity for os.SameFile
	size      int64       // size at the last refresh
	mtime     time.Time   // modification time at the last refresh
	prefix    []byte      // first ≤ FingerprintSize bytes, as last seen
	fp        string      // "" until fingerprint() can name the file
	off       int64       // next byte to read
	histEnd   int64       // lines ending at or before this are History
	resumed   int64       // offset taken from a saved position, else 0
	live      bool        // registered in acks under key()
	stale     bool        // content changed under a read: start over
	split     splitter
	tickSize  int64 // retired files: size at the previous backstop tick
}

func openFile(path, tag string, maxLine int) (*file, error) {
	fd, fi, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	f := &file{tag: tag, path: path, fd: fd, fi: fi, tickSize: -1}
	f.split.max = maxLine
	if _, err := f.refresh(); err != nil {
		_ = fd.Close()
		return nil, err
	}
	return f, nil
}

// openRegular opens path for reading if it is a regular file.
// Non-blocking: should a FIFO take the file's place between the glob's
// Stat and this open, opening it must not block the follower waiting for
// a writer; it is refused on the open descriptor (fsutil.ErrNotRegular).
func openRegular(path string) (*os.File, os.FileInfo, error) {
	fd, err := fsutil.OpenRegular(path)
	if err != nil {
		return nil, nil, fmt.Errorf("open: %w", err)
	}
	fi, err := fd.Stat()
	if err != nil {
		_ = fd.Close()
		return nil, nil, fmt.Errorf("open %s: %w", path, err)
	}
	return fd, fi, nil
}

// acquire opens a polled file for a pass; it fails with errReplaced when
// the path now names another file.
func (f *file) acquire() error {
	if f.fd != nil {
		return nil
	}
	fd, fi, err := openRegular(f.path)
	if err != nil {
		return err
	}
	if !os.SameFile(fi, f.fi) {
		_ = fd.Close()
		return errReplaced
	}
	f.fd = fd
	return nil
}

// release closes a polled file's descriptor after its pass.
func (f *file) release() {
	if f.polled && f.fd != nil {
		_ = f.fd.Close()
		f.fd = nil
	}
}

// unchanged: a polled file's path shows the file as it was when last read
// to its end, so there is nothing to open it for.
func (f *file) unchanged() bool {
	fi, err := os.Stat(f.path)
	return err == nil && f.readAsIs(fi)
}

// readAsIs: fi, a stat of f's path, shows the file as it was when last read
// to its end (same file, size and modification time): a write, even one
// whose event was missed, moves its size or its time.
func (f *file) readAsIs(fi os.FileInfo) bool {
	return os.SameFile(fi, f.fi) && fi.Size() == f.size && f.off >= f.size && fi.ModTime().Equal(f.mtime)
}

func (f *file) key() ackKey { return ackKey{f.path, f.fp} }

// refresh re-reads the size and the first bytes. changed reports that the
// file no longer holds what was read from it: it shrank, or its first bytes
// differ (truncated and rewritten, or copied over).
func (f *file) refresh() (changed bool, err error) {
	fi, err := f.fd.Stat()
	if err != nil {
		return false, fmt.Errorf("stat: %w", err)
	}
	var b [FingerprintSize]byte
	n, err := f.fd.ReadAt(b[:], 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return false, fmt.Errorf("read: %w", err)
	}
	common := min(n, len(f.prefix))
	if fi.Size() < max(f.size, f.off) || !bytes.Equal(b[:common], f.prefix[:common]) {
		return true, nil
	}
	f.size, f.mtime = fi.Size(), fi.ModTime()
	if n > len(f.prefix) {
		f.prefix = append(f.prefix[:0], b[:n]...)
	}
	if f.fp == "" {
		f.fp, _ = fingerprint(f.prefix)
	}
	return false, nil
}

// samePrefix reports that the file still starts with the bytes last seen
// there, after a chunk was read: the chunk belongs to the content refresh
// looked at. (A rewrite that starts with the same bytes cannot be told.)
func (f *file) samePrefix() bool {
	var b [FingerprintSize]byte
	n, err := f.fd.ReadAt(b[:len(f.prefix)], 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return true // cannot tell; the next refresh looks again
	}
	return n == len(f.prefix) && bytes.Equal(b[:n], f.prefix)
}

// restart forgets everything read: the file is read again from offset 0.
func (f *file) restart() {
	f.prefix = f.prefix[:0]
	f.fp = ""
	f.size, f.off, f.histEnd, f.resumed = 0, 0, 0, 0
	f.stale = false
	f.split.reset(0, skipNone)
}

// seek makes the next read start at off. mode skipToNewline drops the bytes
// up to the first newline, for a start that may fall inside a line.
func (f *file) seek(off int64, mode skipMode) {
	f.off = off
	f.split.reset(off, mode)
}

// read reads up to budget bytes from the current offset, handing complete
// lines to line and over-long ones to long. more reports that the budget
// ran out before the end of the file; stopped that line returned false.
func (f *file) read(buf []byte, budget int64, line func([]byte, int64) bool, long func(int64)) (more, stopped bool, err error) {
	for budget > 0 {
		n, err := f.fd.ReadAt(buf, f.off)
		if n > 0 && f.off > 0 && !f.samePrefix() {
			// Truncated since refresh: what sits at f.off now may be the
			// middle of a new line. Nothing of it is handed on.
			return false, false, errRewritten
		}
		if n > 0 {
			base := f.off
			f.off += int64(n)
			budget -= int64(n)
			if !f.split.feed(buf[:n], base, line, long) {
				return false, true, nil
			}
		}
		if errors.Is(err, io.EOF) {
			return false, false, nil
		}
		if err != nil {
			return false, false, fmt.Errorf("read: %w", err)
		}
	}
	return true, false, nil
}

func (f *file) close() {
	if f.fd != nil {
		_ = f.fd.Close()
		f.fd = nil
	}
}
