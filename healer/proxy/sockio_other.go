//go:build !linux

package proxy

import (
	"errors"
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// sockIO is the connection's own Read and Write here; on Linux it reads
// and writes the socket with raw system calls (sockio_linux.go).
type sockIO struct {
	conn   net.Conn
	first  []byte // Send's request, written by the next Read
	unsent bool
}

func newSockIO(c net.Conn) *sockIO { return &sockIO{conn: c} }

// Send makes b a request the next Read writes before it reads.
func (s *sockIO) Send(b []byte) { s.first, s.unsent = b, false }

// Unsent reports whether the last Send's write failed before a byte of it
// went.
func (s *sockIO) Unsent() bool { return s.unsent }

func (s *sockIO) Read(b []byte) (int, error) {
	if err := s.Flush(); err != nil {
		return 0, err
	}
	return s.conn.Read(b)
}

func (s *sockIO) Write(b []byte) (int, error) { return s.conn.Write(b) }

// Flush writes what Send left for the next Read, now.
func (s *sockIO) Flush() error {
	if len(s.first) == 0 {
		return nil
	}
	n, err := s.conn.Write(s.first)
	s.first = nil
	s.unsent = err != nil && n == 0
	return err
}

// peekSocket looks at the socket's next byte without taking it, without
// waiting: 0 bytes and no error is its end.
func peekSocket(fd uintptr) (int, syscall.Errno) {
	var b [1]byte
	n, _, err := unix.Recvfrom(int(fd), b[:], unix.MSG_PEEK|unix.MSG_DONTWAIT)
	var errno syscall.Errno
	if err != nil && !errors.As(err, &errno) {
		errno = syscall.EIO
	}
	return n, errno
}
