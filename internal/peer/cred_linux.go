package peer

import (
	"fmt"
	"net"

	"golang.org/x/sys/unix"
)

// unixUID is the peer's uid as the kernel recorded it at connect
// (SO_PEERCRED).
func unixUID(c *net.UnixConn) (int, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return Unknown, fmt.Errorf("peer: %w", err)
	}
	var cred *unix.Ucred
	var credErr error
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return Unknown, fmt.Errorf("peer: %w", err)
	}
	if credErr != nil {
		return Unknown, fmt.Errorf("peer: SO_PEERCRED: %w", credErr)
	}
	return int(cred.Uid), nil
}
