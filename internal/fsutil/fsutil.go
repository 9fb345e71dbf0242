// Package fsutil holds the file-system moves several packages need:
// replacing a file atomically, finding the nearest existing directory, and
// opening files safely: the state directory checked private before use,
// its files never through a link (OpenPrivate), and inputs never blocking
// on a FIFO (OpenRegular).
package fsutil

import (
	"fmt"
	"os"
	"path/filepath"
)

// WriteAtomic replaces path with data so that a reader (or a process killed
// midway) sees the old file or the new one, never a partial one: a temp file
// in the same directory, perm set, fsync, rename, fsync of the directory.
// The temp file is removed on failure.
func WriteAtomic(path string, data []byte, perm os.FileMode) (err error) {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			_ = os.Remove(tmp.Name())
		}
	}()
	err = tmp.Chmod(perm)
	if err == nil {
		_, err = tmp.Write(data)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	SyncDir(dir)
	return nil
}

// SyncDir makes a rename durable. Some systems cannot fsync a directory;
// the rename is then as durable as they allow, so the error is dropped.
func SyncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	_ = d.Sync()
	_ = d.Close()
}

// NearestDir is dir or its nearest ancestor that is a directory, or "".
func NearestDir(dir string) string {
	for {
		if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// Unchanged reports whether a and b, two stats, are one file not written
// between them: the same file, size and modification time (a write moves
// the size or the time). A nil b is no file.
func Unchanged(a, b os.FileInfo) bool {
	return a != nil && b != nil && os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}
