//go:build !linux

package stdio

import "golang.org/x/sys/unix"

// fionread is the ioctl that tells how many bytes wait in a pipe.
const fionread = unix.FIONREAD
