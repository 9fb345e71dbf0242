package stdio

import (
	"errors"
	"io"
	"os"
	"runtime"
	"sync/atomic"
	"syscall"
	"time"
)

// spinFor is how long a relay keeps reading a side it expects a message
// from rather than sleeping: after it sends the server a request (its
// answer is due) and after it gives the host a message (the host's next
// request is often due). A process that sleeps between two messages is
// woken for the next one, and on a small VM that wake is most of what a
// relay adds (bench-stdio: a trivial relay adds 64 µs at p50, all of it
// the wake). The spin costs CPU only while messages flow, at most this
// much per message; an idle relay never spins.
const spinFor = 200 * time.Microsecond

// hotReader reads a non-blocking pipe or socket. While a message is
// expected (expect), a read that finds nothing tries again at once for up
// to spinFor instead of parking on the poller; otherwise it parks as any
// read does. A reader parked when a message becomes expected is kicked
// out of its wait (a read deadline in the past) to spin.
type hotReader struct {
	f     *os.File
	rc    syscall.RawConn
	epoch time.Time
	// until is when the spin ends, in ns since epoch; 0: nothing expected.
	until  atomic.Int64
	parked atomic.Bool
}

// newHotReader reads f, which must be in non-blocking mode (os.Pipe's
// files are; see hotStdin for an inherited one). On a machine with one
// CPU nothing spins: the awaited party could not run meanwhile.
func newHotReader(f *os.File) (io.Reader, *hotReader) {
	rc, err := f.SyscallConn()
	if err != nil || runtime.NumCPU() < 2 {
		return f, nil
	}
	h := &hotReader{f: f, rc: rc, epoch: time.Now()}
	return h, h
}

// expect says a message is due on h: its reader spins for spinFor. A nil
// h (a reader that does not spin) ignores it.
func (h *hotReader) expect() {
	if h == nil {
		return
	}
	h.until.Store(int64(time.Since(h.epoch) + spinFor))
	// Set until, then look at parked; the reader sets parked, then looks
	// at until: one of the two sees the other, so no expectation is
	// left with its reader asleep.
	if h.parked.Load() {
		_ = h.f.SetReadDeadline(time.Unix(1, 0))
	}
}

func (h *hotReader) hot() bool {
	u := h.until.Load()
	return u != 0 && int64(time.Since(h.epoch)) < u
}

// Read reads what is there, spinning while a message is expected and
// parking otherwise. A read that ends a line ends the expectation: the
// message came (a partial one keeps it, the rest is due).
func (h *hotReader) Read(p []byte) (int, error) {
	for {
		n, err := h.read(p)
		if errors.Is(err, os.ErrDeadlineExceeded) { // kicked: a message is due
			_ = h.f.SetReadDeadline(time.Time{})
			continue
		}
		if n > 0 && p[n-1] == '\n' {
			h.until.Store(0)
		}
		return n, err
	}
}

func (h *hotReader) read(p []byte) (n int, err error) {
	var serr error
	err = h.rc.Read(func(fd uintptr) bool {
		for {
			n, serr = syscall.Read(int(fd), p)
			switch {
			case serr == syscall.EINTR:
				continue
			case serr != syscall.EAGAIN:
				return true
			case h.hot():
				yield()
				continue
			}
			h.parked.Store(true)
			if h.hot() { // expected just now: see expect
				h.parked.Store(false)
				continue
			}
			return false // park until readable (or kicked)
		}
	})
	h.parked.Store(false)
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		return 0, err
	case err != nil:
		// RawRead fails otherwise only when f was closed (internal/poll's
		// ErrFileClosing, which f.Read would report as os.ErrClosed).
		return 0, &os.PathError{Op: "read", Path: h.f.Name(), Err: os.ErrClosed}
	case serr != nil:
		return 0, &os.PathError{Op: "read", Path: h.f.Name(), Err: serr}
	case n == 0 && len(p) > 0:
		return 0, io.EOF
	}
	return n, nil
}

// hotStdin is r made to spin when r is an inherited pipe or socket (a
// host's usual stdin): a duplicate of it, in non-blocking mode so the
// poller can wake and kick its reader. A terminal, a file or any other
// reader is read as it is. done closes the duplicate (a read blocked in
// it returns) and puts the blocking mode back for whoever shares it.
func hotStdin(r io.Reader) (_ io.Reader, _ *hotReader, done func()) {
	f, ok := r.(*os.File)
	if !ok {
		return r, nil, func() {}
	}
	fi, err := f.Stat()
	if err != nil || fi.Mode()&(os.ModeNamedPipe|os.ModeSocket) == 0 {
		return r, nil, func() {}
	}
	fd, err := dupOf(f) // not f.Fd(): that would make f blocking
	if err != nil {
		return r, nil, func() {}
	}
	syscall.CloseOnExec(fd)
	wasBlocking := !isNonblock(fd)
	if err := syscall.SetNonblock(fd, true); err != nil {
		_ = syscall.Close(fd)
		return r, nil, func() {}
	}
	dup := os.NewFile(uintptr(fd), f.Name())
	hr, h := newHotReader(dup)
	return hr, h, func() {
		// Closed first: the close waits out a read under way (a spin ends
		// within spinFor), which a blocking mode put back beneath it would
		// leave stuck in the kernel. The mode belongs to the open file, so
		// it is put back through the original.
		_ = dup.Close()
		if wasBlocking {
			if rc, err := f.SyscallConn(); err == nil {
				_ = rc.Control(func(fd uintptr) { _ = syscall.SetNonblock(int(fd), false) })
			}
		}
	}
}

func dupOf(f *os.File) (int, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return -1, err
	}
	fd, derr := -1, error(nil)
	if err := rc.Control(func(raw uintptr) { fd, derr = syscall.Dup(int(raw)) }); err != nil {
		return -1, err
	}
	return fd, derr
}
