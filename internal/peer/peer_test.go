package peer_test

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/peer"
	"github.com/mcpwatchdog/watchdog/internal/testbed/otheruser"
)

func TestMain(m *testing.M) {
	otheruser.Main()
	os.Exit(m.Run())
}

// listeners are the kinds the daemon serves on: loopback TCP (the proxy,
// metrics) and a unix socket (control), made reachable by every user so
// that only the peer check stands in the way.
func listeners(t *testing.T) map[string]net.Listener {
	t.Helper()
	out := map[string]net.Listener{}
	for _, addr := range []string{"127.0.0.1:0", "[::1]:0"} {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			t.Logf("no %s here: %v", addr, err)
			continue
		}
		t.Cleanup(func() { _ = ln.Close() })
		out["tcp "+addr] = ln
	}
	dir, err := os.MkdirTemp("", "peer")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "s.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	if err := os.Chmod(path, 0o666); err != nil {
		t.Fatal(err)
	}
	out["unix"] = ln
	return out
}

// TestUIDOfOwnConnection: every kind of connection this process makes is
// named as this process's uid.
func TestUIDOfOwnConnection(t *testing.T) {
	for name, ln := range listeners(t) {
		t.Run(name, func(t *testing.T) {
			c, err := net.Dial(ln.Addr().Network(), ln.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			got, err := ln.Accept()
			if err != nil {
				t.Fatal(err)
			}
			defer got.Close()
			uid, err := peer.UID(got)
			if err != nil || uid != os.Geteuid() {
				t.Errorf("UID = %d, %v; want %d", uid, err, os.Geteuid())
			}
		})
	}
}

// TestOwnRefusesAnotherUser: a client of uid 65534 is closed before a byte
// is read and reported once by its uid; this process's own client is
// handed out.
func TestOwnRefusesAnotherUser(t *testing.T) {
	other := otheruser.New(t)
	for name, ln := range listeners(t) {
		t.Run(name, func(t *testing.T) {
			refused := make(chan int, 4)
			own := peer.Own(ln, func(uid int) { refused <- uid })
			accepted := make(chan net.Conn, 1)
			go func() {
				c, err := own.Accept()
				if err == nil {
					accepted <- c
				}
			}()
			if got := other.Dial(ln.Addr().Network(), ln.Addr().String(), "GET / HTTP/1.1\r\nHost: x\r\n\r\n"); !strings.HasPrefix(got, "closed") {
				t.Errorf("the other user's client: %s; want its connection closed", got)
			}
			if uid := receive(t, refused); uid != otheruser.UID {
				t.Errorf("refused uid %d, want %d", uid, otheruser.UID)
			}
			c, err := net.Dial(ln.Addr().Network(), ln.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			(<-accepted).Close()
			if len(refused) != 0 {
				t.Errorf("refused more: %d", <-refused)
			}
		})
	}
}

// receive waits for the refusal the listener reports after it closed the
// connection, failing the test when none comes.
func receive(t *testing.T, refused <-chan int) int {
	t.Helper()
	select {
	case uid := <-refused:
		return uid
	case <-time.After(10 * time.Second):
		t.Fatal("no refusal reported")
		return 0
	}
}
