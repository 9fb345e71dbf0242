package stdio

import "golang.org/x/sys/unix"

// isNonblock reports whether fd's open file is in non-blocking mode.
func isNonblock(fd int) bool {
	fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	return err == nil && fl&unix.O_NONBLOCK != 0
}
