// Package peer says which local user is at the other end of a connection
// a listener of the daemon accepted, so that the proxy (which adds the
// config's credentials to what it forwards), the metrics endpoint and the
// control socket serve the user the daemon runs as and nobody else.
//
// Linux names the owner of a loopback TCP peer (netlink sock_diag, with
// /proc/net/tcp as the fallback) and of a unix socket peer (SO_PEERCRED).
// macOS names a unix socket peer's (LOCAL_PEERCRED) but has no owner for
// a TCP peer: there UID answers ErrNoOwner, and the proxy's secret path is
// what keeps other users out.
package peer

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
)

// Errors callers branch on.
var (
	// ErrNoOwner: this system does not say who owns a TCP peer (macOS).
	ErrNoOwner = errors.New("this system does not name the owner of a TCP peer")
	// ErrNotFound: the peer's socket is not in the kernel's table (it
	// closed already, or it is not on this machine).
	ErrNotFound = errors.New("the peer's socket is not in the kernel's socket table")
	// ErrUnsupported: a connection that is neither TCP nor a unix socket.
	ErrUnsupported = errors.New("not a TCP or unix socket connection")
)

// Unknown is the uid reported for a refused connection whose owner could
// not be found.
const Unknown = -1

// UID is the uid owning the socket at the other end of c, a connection
// accepted from a loopback TCP or unix socket listener. It costs a few
// system calls; call it once per connection.
func UID(c net.Conn) (int, error) {
	switch remote := c.RemoteAddr().(type) {
	case *net.TCPAddr:
		local, ok := c.LocalAddr().(*net.TCPAddr)
		if !ok {
			return Unknown, fmt.Errorf("peer: %w", ErrUnsupported)
		}
		return tcpUID(local.AddrPort(), remote.AddrPort())
	case *net.UnixAddr:
		uc, ok := c.(*net.UnixConn)
		if !ok {
			return Unknown, fmt.Errorf("peer: %w", ErrUnsupported)
		}
		return unixUID(uc)
	}
	return Unknown, fmt.Errorf("peer: %T: %w", c.RemoteAddr(), ErrUnsupported)
}

// Own wraps ln so that it hands out only connections of the user this
// process runs as (its effective uid). Any other is closed before a byte
// of it is read, and refused is called with its uid (Unknown when it
// could not be found: the lookup fails closed). refused runs on the
// accepting goroutine and must not block; nil: none. Where the system
// names no owner (a TCP peer on macOS) every connection is handed out.
func Own(ln net.Listener, refused func(uid int)) net.Listener {
	if refused == nil {
		refused = func(int) {}
	}
	return &owned{Listener: ln, uid: os.Geteuid(), refused: refused}
}

type owned struct {
	net.Listener
	uid     int
	refused func(uid int)
}

func (l *owned) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		uid, err := UID(c)
		switch {
		case errors.Is(err, ErrNoOwner):
			return c, nil
		case err != nil:
			uid = Unknown
		case uid == l.uid:
			return c, nil
		}
		_ = c.Close()
		l.refused(uid)
	}
}

// candidates are the (family, local, remote) forms the peer's own socket
// may have: a v4 peer of a v6 listener is a v4 socket, or a v6 one with
// mapped addresses.
func candidates(local, remote netip.AddrPort) [][2]netip.AddrPort {
	l, r := unmap(local), unmap(remote)
	if l.Addr().Is4() && r.Addr().Is4() {
		return [][2]netip.AddrPort{{l, r}, {mapped(l), mapped(r)}}
	}
	return [][2]netip.AddrPort{{local, remote}}
}

func unmap(a netip.AddrPort) netip.AddrPort { return netip.AddrPortFrom(a.Addr().Unmap(), a.Port()) }

func mapped(a netip.AddrPort) netip.AddrPort {
	return netip.AddrPortFrom(netip.AddrFrom16(a.Addr().As16()), a.Port())
}
