//go:build unix

package beacon

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// ownerOf is the uid owning fi's file; false when the platform does not say.
func ownerOf(fi fs.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}

// links is fi's hard-link count; 1 when the platform does not say.
func links(fi fs.FileInfo) uint64 {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 1
	}
	return uint64(st.Nlink) // uint16 on darwin
}

// openNoFollow opens path for reading unless its last component is a
// symlink (swapped in after the Lstat), and without blocking on a FIFO.
func openNoFollow(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
}

// pidGone reports whether no process has pid: only a definite "no such
// process" counts, never a failure to look.
func pidGone(pid int32) bool {
	return errors.Is(syscall.Kill(int(pid), 0), syscall.ESRCH)
}
