package follow

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/mcpwatchdog/watchdog/internal/fsutil"
)

// file is one followed file: an open descriptor and how far it was read.
// The descriptor stays open across renames and deletion, so a rotated file
// can be read to its end.
type file struct {
	tag, path string
	fd        *os.File
	fi        os.FileInfo // from the open descriptor: identity for os.SameFile
	size      int64       // size at the last refresh
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
	// Non-blocking: should a FIFO take the file's place between the
	// glob's Stat and this open, opening it must not block the follower
	// waiting for a writer; it is refused on the open descriptor.
	fd, err := fsutil.OpenRegular(path)
	if err != nil {
		return nil, fmt.Errorf("open: %w", err)
	}
	fi, err := fd.Stat()
	if err != nil {
		_ = fd.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	f := &file{tag: tag, path: path, fd: fd, fi: fi, tickSize: -1}
	f.split.max = maxLine
	if _, err := f.refresh(); err != nil {
		_ = fd.Close()
		return nil, err
	}
	return f, nil
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
	f.size = fi.Size()
	if n > len(f.prefix) {
		f.prefix = append(f.prefix[:0], b[:n]...)
	}
	if f.fp == "" {
		f.fp, _ = fingerprint(f.prefix)
	}
	return false, nil
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

func (f *file) close() { _ = f.fd.Close() }
