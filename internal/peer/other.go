//go:build !linux && !darwin

package peer

import (
	"fmt"
	"net"
	"net/netip"
)

// Elsewhere the watchdog does not ask; the proxy's secret still holds.
func unixUID(*net.UnixConn) (int, error) { return Unknown, fmt.Errorf("peer: %w", ErrNoOwner) }

func tcpUID(netip.AddrPort, netip.AddrPort) (int, error) {
	return Unknown, fmt.Errorf("peer: %w", ErrNoOwner)
}
