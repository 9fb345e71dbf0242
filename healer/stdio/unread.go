package stdio

import (
	"os"

	"golang.org/x/sys/unix"
)

// unread is how many bytes written to pipe f its reader has not read: the
// tail of what was written. 0 when it cannot be told.
func unread(f *os.File) int64 {
	raw, err := f.SyscallConn()
	if err != nil {
		return 0
	}
	var n int
	var ierr error
	if raw.Control(func(fd uintptr) { n, ierr = unix.IoctlGetInt(int(fd), fionread) }) != nil || ierr != nil {
		return 0
	}
	return int64(n)
}
