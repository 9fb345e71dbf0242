package peer

import (
	"errors"
	"net"
	"net/netip"
	"os"
	"testing"
)

// TestBothLookups: sock_diag and the /proc table each find a loopback
// connection's peer by its addresses, and neither finds one that is not
// there.
func TestBothLookups(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// The peer's socket: local is our remote, remote our local.
	local, remote := s.RemoteAddr().(*net.TCPAddr).AddrPort(), s.LocalAddr().(*net.TCPAddr).AddrPort()
	gone := netip.AddrPortFrom(local.Addr(), 1)
	for _, tc := range []struct {
		name   string
		lookup func(l, r netip.AddrPort) (int, error)
	}{
		{"sock_diag", diagUID},
		{"/proc/net/tcp", procUID},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if uid, err := tc.lookup(local, remote); err != nil || uid != os.Geteuid() {
				t.Errorf("lookup = %d, %v; want %d", uid, err, os.Geteuid())
			}
			if _, err := tc.lookup(gone, remote); !errors.Is(err, ErrNotFound) {
				t.Errorf("lookup of a socket not there: %v, want ErrNotFound", err)
			}
		})
	}
}

// BenchmarkUID is the per-connection cost of the check.
func BenchmarkUID(b *testing.B) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	s, err := ln.Accept()
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	local, remote := s.RemoteAddr().(*net.TCPAddr).AddrPort(), s.LocalAddr().(*net.TCPAddr).AddrPort()
	for _, bc := range []struct {
		name   string
		lookup func(l, r netip.AddrPort) (int, error)
	}{{"sock_diag", diagUID}, {"proc", procUID}} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := bc.lookup(local, remote); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
