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
	buf                    []byte
	n                      int
	errno                  syscall.Errno
	read, write, writeRead func(fd uintptr) bool

	// first is the request the next Read writes before it waits (Send);
	// sent is how much of it went, unsent that its write failed before a
	// byte did.
	first  []byte
	sent   int
	unsent bool
}

func newSockIO(c net.Conn) *sockIO {
	s := &sockIO{conn: c}
	if sc, ok := c.(syscall.Conn); ok {
		if rc, err := sc.SyscallConn(); err == nil {
			s.rc = rc
			s.read, s.write, s.writeRead = s.doRead, s.doWrite, s.doWriteRead
		}
	}
	return s
}

// Send makes b a request the next Read writes first, within its own wait
// for the answer: the poller's readiness is reset before the write, so
// an answer cannot come unnoticed, and no read is tried before one can
// have come. A read right after the write would find nothing (on loopback
// the server has yet to run): a system call per call for EAGAIN that
// nginx does not make, since it reads a socket only once epoll says so.
// Send(nil) writes nothing.
func (s *sockIO) Send(b []byte) {
	s.first, s.sent, s.unsent = b, 0, false
	if len(b) == 0 {
		s.first = nil
	}
}

// Unsent reports whether the last Send's write failed before a byte of it
// went: the server never saw the request.
func (s *sockIO) Unsent() bool { return s.unsent }

// Flush writes what Send left for the next Read, now: before the
// connection is closed, given away, or its buffer reused without a read.
func (s *sockIO) Flush() error {
	s.errno = 0 // no write of it was tried yet
	return s.writeFirst()
}

func (s *sockIO) Read(b []byte) (int, error) {
	if s.rc == nil {
		if err := s.writeFirst(); err != nil {
			return 0, err
		}
		return s.conn.Read(b)
	}
	if len(b) == 0 {
		return 0, nil
	}
	s.buf, s.n, s.errno = b, 0, 0
	f := s.read
	if s.first != nil {
		f = s.writeRead
	}
	err := s.rc.Read(f)
	s.buf = nil
	if s.first != nil { // its write did not end within the wait: it failed, or the socket's buffer was full
		if err == nil {
			err = s.writeFirst()
		}
		if err != nil {
			s.first, s.unsent = nil, s.sent == 0
			return 0, err
		}
		return s.Read(b)
	}
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

// doWriteRead writes s.first whole, then waits (false: the poller waits
// for the answer), then reads. A write that fails, or that the socket
// cannot take whole now, ends it with its errno in s.errno and s.first
// still set: Read goes on with writeFirst.
func (s *sockIO) doWriteRead(fd uintptr) bool {
	for s.first != nil {
		r, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&s.first[0])), uintptr(len(s.first)))
		switch {
		case e == syscall.EINTR:
			continue
		case e != 0 || r == 0:
			s.errno = e
			return true
		}
		s.sent += int(r)
		if s.first = s.first[r:]; len(s.first) == 0 {
			s.first = nil
			return false
		}
	}
	return s.call(syscall.SYS_READ, fd)
}

// writeFirst writes what is left of s.first the ordinary way (waiting
// until the socket takes it); s.errno is how its write within the wait
// ended (0 where there was none).
func (s *sockIO) writeFirst() error {
	rest := s.first
	if rest == nil {
		return nil
	}
	s.first = nil
	if s.errno != 0 && s.errno != syscall.EAGAIN {
		s.unsent = s.sent == 0
		return &net.OpError{Op: "write", Net: "tcp", Source: s.conn.LocalAddr(), Addr: s.conn.RemoteAddr(), Err: os.NewSyscallError("write", s.errno)}
	}
	var n int
	var err error
	if s.rc == nil {
		n, err = s.conn.Write(rest)
	} else {
		n, err = s.Write(rest)
	}
	if s.sent += n; err != nil {
		s.unsent = s.sent == 0
	}
	return err
}

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
