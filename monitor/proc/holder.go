package proc

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"strconv"

	gnet "github.com/shirou/gopsutil/v4/net"
	"github.com/shirou/gopsutil/v4/process"
)

// Holder is the process that listens on a TCP address.
type Holder struct {
	PID  int32
	Name string // the process's name; "" when unreadable
}

// String names the holder for a person: "nc (pid 4242)", or "pid 4242".
func (h Holder) String() string {
	if h.Name == "" {
		return fmt.Sprintf("pid %d", h.PID)
	}
	return fmt.Sprintf("%s (pid %d)", h.Name, h.PID)
}

// HolderOf finds the process listening on addr (host:port): a socket on
// that address and port, or on the wildcard address of its family, which
// holds every address. It walks every process's descriptors (on Linux;
// lsof on macOS), so callers ask only when a bind failed. ok is false
// when no listener was found: another user's process, whose descriptors
// cannot be read, or one that has let go of the port since.
func HolderOf(ctx context.Context, addr string) (h Holder, ok bool, err error) {
	want, err := parseAddrPort(addr)
	if err != nil {
		return Holder{}, false, err
	}
	conns, err := gnet.ConnectionsWithoutUidsWithContext(ctx, "tcp")
	if err != nil {
		return Holder{}, false, fmt.Errorf("proc: list TCP sockets: %w", err)
	}
	for _, c := range conns {
		if c.Status != listenState || c.Pid <= 0 || !holds(c.Laddr, want) {
			continue
		}
		h := Holder{PID: c.Pid}
		if p, err := process.NewProcessWithContext(ctx, c.Pid); err == nil {
			h.Name = comm(ctx, p)
		}
		return h, true, nil
	}
	return Holder{}, false, nil
}

// parseAddrPort reads host:port, "localhost" as 127.0.0.1.
func parseAddrPort(addr string) (netip.AddrPort, error) {
	host, portText, err := net.SplitHostPort(addr)
	if err != nil {
		return netip.AddrPort{}, fmt.Errorf("proc: %q is not host:port: %w", addr, err)
	}
	port, err := strconv.ParseUint(portText, 10, 16)
	if err != nil {
		return netip.AddrPort{}, fmt.Errorf("proc: %q: bad port: %w", addr, err)
	}
	if host == "localhost" {
		host = "127.0.0.1"
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return netip.AddrPort{}, fmt.Errorf("proc: %q: %w", addr, err)
	}
	return netip.AddrPortFrom(ip.Unmap().WithZone(""), uint16(port)), nil
}

// holds: a listener at a holds want's port on want's address, or on the
// wildcard address (0.0.0.0 holds every IPv4 address; :: every one).
func holds(a gnet.Addr, want netip.AddrPort) bool {
	if int(a.Port) != int(want.Port()) {
		return false
	}
	ip, err := netip.ParseAddr(a.IP)
	if err != nil {
		return false
	}
	ip = ip.Unmap().WithZone("")
	return ip == want.Addr() || ip.IsUnspecified()
}
