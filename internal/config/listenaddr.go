package config

import (
	"net"
	"net/netip"
	"strconv"
	"strings"
)

// listener is one configured listen address, with every socket address it
// may bind.
type listener struct {
	key, value string
	binds      []netip.AddrPort
}

// bindsOf is every socket address a valid loopback listen value may bind,
// in canonical form: the port as a number (014299 is 14299), an IPv4-mapped
// address as IPv4 (Go binds [::ffff:127.0.0.1] as 127.0.0.1), no IPv6 zone
// (the kernel takes ::1%lo for ::1). "localhost" binds 127.0.0.1 for the
// metrics (internal/metrics pins it); the proxy listens on it through the
// system resolver, which takes one of the hosts file's addresses, IPv4
// first, so either loopback may be taken and both count. Distinct
// addresses do not clash: 127.0.0.1:P beside 127.0.0.2:P or [::1]:P both
// bind. An invalid value gives nothing (checkListen reports it).
func bindsOf(value string, resolved bool) []netip.AddrPort {
	host, portText, err := net.SplitHostPort(value)
	if err != nil {
		return nil
	}
	// Atoi as checkListen and Go's own port parser: a sign is allowed.
	port, err := strconv.Atoi(portText)
	if err != nil || port < 1 || port > 65535 {
		return nil
	}
	p := uint16(port)
	if strings.EqualFold(host, "localhost") {
		// Named without a lookup: these keys are loopback-only.
		v4 := netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, 0, 0, 1}), p)
		if resolved {
			return []netip.AddrPort{v4, netip.AddrPortFrom(netip.IPv6Loopback(), p)}
		}
		return []netip.AddrPort{v4}
	}
	ip, err := netip.ParseAddr(host)
	if err != nil || !ip.Unmap().IsLoopback() {
		return nil
	}
	return []netip.AddrPort{netip.AddrPortFrom(ip.Unmap().WithZone(""), p)}
}

// sharedBind is the first socket address both listeners may bind.
func sharedBind(a, b listener) (netip.AddrPort, bool) {
	for _, x := range a.binds {
		for _, y := range b.binds {
			if x == y {
				return x, true
			}
		}
	}
	return netip.AddrPort{}, false
}
