//go:build unix

package fsutil

import (
	"io/fs"
	"syscall"
)

// Open flags of the checks: no following a link in the last component, no
// blocking on a FIFO (a no-op for regular files).
const (
	oNoFollow = syscall.O_NOFOLLOW
	oNonBlock = syscall.O_NONBLOCK
)

// ownerOf is the uid owning fi's file; false when the platform does not say.
func ownerOf(fi fs.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}
