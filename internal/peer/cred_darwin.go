package peer

import (
	"fmt"
	"net"
	"net/netip"

	"golang.org/x/sys/unix"
)

// unixUID is the peer's uid as the kernel recorded it at connect
// (LOCAL_PEERCRED, what getpeereid reads).
func unixUID(c *net.UnixConn) (int, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return Unknown, fmt.Errorf("peer: %w", err)
	}
	var cred *unix.Xucred
	var credErr error
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = unix.GetsockoptXucred(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	}); err != nil {
		return Unknown, fmt.Errorf("peer: %w", err)
	}
	if credErr != nil {
		return Unknown, fmt.Errorf("peer: LOCAL_PEERCRED: %w", credErr)
	}
	return int(cred.Uid), nil
}

// tcpUID: macOS keeps no owner for a TCP peer that it would tell.
func tcpUID(netip.AddrPort, netip.AddrPort) (int, error) {
	return Unknown, fmt.Errorf("peer: %w", ErrNoOwner)
}
