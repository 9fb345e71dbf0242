package config

import (
	"errors"
	"net"
	"strings"
	"syscall"
	"testing"
)

// TestListenVerdictMatchesTheKernel: for each pair, validation calls a
// clash exactly when the kernel refuses the second bind, as the daemon
// binds them (net.Listen "tcp"; metrics_listen pins localhost to
// 127.0.0.1, so it is left out here). PORT is a free port. Left out on
// purpose: localhost beside [::1], a clash to validation because a hosts
// file may map localhost to ::1 alone, though here both would bind.
func TestListenVerdictMatchesTheKernel(t *testing.T) {
	t.Parallel()
	pairs := [][2]string{
		{"127.0.0.1:PORT", "localhost:PORT"},
		{"127.0.0.1:PORT", "127.0.0.1:0PORT"},
		{"127.0.0.1:PORT", "[::ffff:127.0.0.1]:PORT"},
		{"[::1]:PORT", "[0:0:0:0:0:0:0:1]:PORT"},
		{"[::1]:PORT", "[::1%lo]:PORT"},
		{"127.0.0.1:PORT", "127.0.0.2:PORT"},
		{"127.0.0.1:PORT", "[::1]:PORT"},
		{"127.0.0.2:PORT", "localhost:PORT"},
	}
	for _, pair := range pairs {
		a, b, refused := bindBoth(t, pair[0], pair[1])
		c := Default()
		c.Servers = append(c.Servers, c.Servers[0])
		c.Servers[1].Name = "other"
		c.Servers[0].ProxyListen, c.Servers[1].ProxyListen = a, b
		if clash := c.Validate() != nil; clash != refused {
			t.Errorf("%s beside %s: validation clash %v, kernel refused %v", b, a, clash, refused)
		}
	}
}

// bindBoth binds a then b on a free port (PORT in both) and says whether
// the kernel refused b as in use. A port another process holds is given
// up for the next, so only the refusal by a counts: b must bind alone.
func bindBoth(t *testing.T, a, b string) (string, string, bool) {
	t.Helper()
	for range 10 {
		port := freePort(t)
		a, b := strings.ReplaceAll(a, "PORT", port), strings.ReplaceAll(b, "PORT", port)
		alone, err := net.Listen("tcp", b)
		if err != nil {
			continue
		}
		alone.Close()
		first, err := net.Listen("tcp", a)
		if err != nil {
			continue
		}
		second, err := net.Listen("tcp", b)
		first.Close()
		if err == nil {
			second.Close()
			return a, b, false
		}
		if !errors.Is(err, syscall.EADDRINUSE) {
			t.Fatalf("%s beside %s: %v", b, a, err)
		}
		return a, b, true
	}
	t.Fatalf("no free port for %s and %s in 10 tries", a, b)
	return "", "", false
}

// freePort is a port nothing listens on just now on 127.0.0.1.
func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	return port
}
