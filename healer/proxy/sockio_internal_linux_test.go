package proxy

import (
	"net"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// After a short read, bytes that come before the next Read begins, or
// while it waits, are read at once. (nginx skips the read after a short
// one and waits for epoll; Go's poller cannot: a raw read resets the
// socket's readiness before its first try, so bytes already there would
// be waited out. Measured: this test timed out.)
func TestReadAfterAShortReadMissesNothing(t *testing.T) {
	t.Parallel()
	client, server := tcpPair(t)
	s := newSockIO(client)
	buf := make([]byte, 64)
	_ = client.SetReadDeadline(time.Now().Add(30 * time.Second))
	for i, part := range []string{"first", "second, here before the Read", "third, sent while it waits"} {
		if i < 2 {
			if _, err := server.Write([]byte(part)); err != nil {
				t.Fatal(err)
			}
			if i == 1 {
				waitQueued(t, client, len(part))
			}
		} else {
			go func() { _, _ = server.Write([]byte(part)) }() // before the Read waits, or while
		}
		n, err := s.Read(buf)
		if err != nil || string(buf[:n]) != part {
			t.Fatalf("read %d: %q, %v; want %q", i, buf[:n], err, part)
		}
	}
}

// waitQueued waits until c's socket holds at least n bytes not yet read.
func waitQueued(t *testing.T, c *net.TCPConn, n int) {
	t.Helper()
	rc, err := c.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		var queued int
		var ierr error
		if err := rc.Control(func(fd uintptr) { queued, ierr = unix.IoctlGetInt(int(fd), unix.SIOCINQ) }); err != nil || ierr != nil {
			t.Fatal(err, ierr)
		}
		if queued >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d bytes arrived in 10 s", queued, n)
		}
		time.Sleep(time.Millisecond)
	}
}
