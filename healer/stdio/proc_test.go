//go:build linux

package stdio_test

import (
	"fmt"
	"os"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// procState is pid's state letter in /proc (R, S, T, Z, ...), 0 when gone.
func procState(pid int) byte {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2]
	}
	return 0
}

// unread is how many bytes wait unread in pid's stdin pipe.
func unread(pid int) int {
	fd, err := syscall.Open(fmt.Sprintf("/proc/%d/fd/0", pid), syscall.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return -1
	}
	defer syscall.Close(fd)
	n, err := unix.IoctlGetInt(fd, unix.TIOCINQ)
	if err != nil {
		return -1
	}
	return n
}
