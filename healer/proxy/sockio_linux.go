package proxy

import (
	"io"
	"net"
	"os"
	"syscall"
	"unsafe"
)

// sockIO reads and writes a connection's socket with raw system calls.
// The fast path's sockets are non-blocking (Go's poller waits for them),
// so a read or write never blocks in the kernel; the runtime's bookkeeping
// around a system call (entersyscall, exitsyscall) is then pure cost, and
// worse: each one wakes the runtime's monitor thread when it sleeps, and
// the monitor hands a P stuck in a long write (loopback TCP delivers to
// the reader inside the writer's write) to another thread. On a proxy
// that does four such calls per call, that was a fifth of its CPU time.
type sockIO struct {
	conn net.Conn
	rc   syscall.RawConn // nil: conn's own Read and Write

	// The call in flight, for doRead and doWrite: method values made once,
	// so a read or write allocates nothing.
	buf         []byte
	n           int
	errno       syscall.Errno
	read, write func(fd uintptr) bool
}

func newSockIO(c net.Conn) *sockIO {
	s := &sockIO{conn: c}
	if sc, ok := c.(syscall.Conn); ok {
		if rc, err := sc.SyscallConn(); err == nil {
			s.rc = rc
			s.read, s.write = s.doRead, s.doWrite
		}
	}
	return s
}

func (s *sockIO) Read(b []byte) (int, error) {
	if s.rc == nil {
		return s.conn.Read(b)
	}
	if len(b) == 0 {
		return 0, nil
	}
	s.buf, s.n, s.errno = b, 0, 0
	err := s.rc.Read(s.read)
	s.buf = nil
	switch {
	case err != nil:
		return 0, err // a deadline, or the connection closed
	case s.errno != 0:
		return 0, &net.OpError{Op: "read", Net: "tcp", Source: s.conn.LocalAddr(), Addr: s.conn.RemoteAddr(), Err: os.NewSyscallError("read", s.errno)}
	case s.n == 0:
		return 0, io.EOF
	}
	return s.n, nil
}

func (s *sockIO) doRead(fd uintptr) bool { return s.call(syscall.SYS_READ, fd) }

// call makes the system call trap (read or write) on fd with s.buf; false
// when the socket is not ready (the poller waits), true with its result
// in s.n and s.errno otherwise.
func (s *sockIO) call(trap, fd uintptr) bool {
	for {
		r, _, e := syscall.RawSyscall(trap, fd, uintptr(unsafe.Pointer(&s.buf[0])), uintptr(len(s.buf)))
		switch e {
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return false
		}
		s.n, s.errno = int(r), e
		return true
	}
}

func (s *sockIO) Write(b []byte) (int, error) {
	if s.rc == nil {
		return s.conn.Write(b)
	}
	done := 0
	for done < len(b) {
		s.buf, s.n, s.errno = b[done:], 0, 0
		err := s.rc.Write(s.write)
		s.buf = nil
		if err != nil {
			return done, err
		}
		if s.errno != 0 {
			return done, &net.OpError{Op: "write", Net: "tcp", Source: s.conn.LocalAddr(), Addr: s.conn.RemoteAddr(), Err: os.NewSyscallError("write", s.errno)}
		}
		done += s.n
	}
	return done, nil
}

func (s *sockIO) doWrite(fd uintptr) bool { return s.call(syscall.SYS_WRITE, fd) }

// peekSocket looks at the socket's next byte without taking it, without
// waiting: 0 bytes and no error is its end.
func peekSocket(fd uintptr) (int, syscall.Errno) {
	var b [1]byte
	for {
		r, _, e := syscall.RawSyscall6(syscall.SYS_RECVFROM, fd, uintptr(unsafe.Pointer(&b[0])), 1,
			syscall.MSG_PEEK|syscall.MSG_DONTWAIT, 0, 0)
		if e != syscall.EINTR {
			return int(r), e
		}
	}
}
