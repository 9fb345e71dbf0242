package peer

import (
	"errors"
	"fmt"
	"net/netip"
)

// tcpUID finds the peer's socket: the one whose local address is our
// connection's remote one and whose remote address is our local one.
// sock_diag looks it up by that 4-tuple in the kernel's hash; when
// netlink is not there (no inet_diag, a sandbox), /proc/net/tcp is read.
func tcpUID(local, remote netip.AddrPort) (int, error) {
	var errs []error
	for _, c := range candidates(local, remote) {
		uid, err := diagUID(c[1], c[0])
		if err == nil {
			return uid, nil
		}
		uid, perr := procUID(c[1], c[0])
		if perr == nil {
			return uid, nil
		}
		errs = append(errs, err, perr)
	}
	return Unknown, fmt.Errorf("peer of %s: %w", remote, errors.Join(errs...))
}
