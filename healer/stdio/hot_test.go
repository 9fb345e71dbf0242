package stdio

import (
	"bytes"
	"errors"
	"io"
	"os"
	"syscall"
	"testing"
	"time"
)

// readAll collects what a hot reader reads until it fails.
func readAll(r io.Reader) (got chan []byte, end chan error) {
	got, end = make(chan []byte, 16), make(chan error, 1)
	go func() {
		buf := make([]byte, 64)
		for {
			n, err := r.Read(buf)
			if n > 0 {
				got <- bytes.Clone(buf[:n])
			}
			if err != nil {
				end <- err
				return
			}
		}
	}()
	return got, end
}

func hotPipe(t *testing.T) (*hotReader, io.Reader, *os.File, *os.File) {
	t.Helper()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = pr.Close(); _ = pw.Close() })
	r, h := newHotReader(pr)
	if h == nil {
		t.Skip("one CPU: nothing spins") // the plain file is read then, as any test shows
	}
	return h, r, pr, pw
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// A message expected while the reader sleeps kicks it awake to spin; the
// kick never reaches the caller as an error, and the spin ends by itself
// when nothing comes (a host that never sends again).
func TestHotReaderKickedAwakeReadsWhatComesLater(t *testing.T) {
	h, r, _, pw := hotPipe(t)
	got, end := readAll(r)
	for i := range 3 {
		waitUntil(t, "the reader to park", h.parked.Load)
		h.expect()
		// The spin runs out with nothing there: the reader parks again.
		waitUntil(t, "the spin to run out", func() bool { return !h.hot() && h.parked.Load() })
		msg := []byte{'a' + byte(i), '\n'}
		if _, err := pw.Write(msg); err != nil {
			t.Fatal(err)
		}
		select {
		case b := <-got:
			if !bytes.Equal(b, msg) {
				t.Fatalf("read %q, want %q", b, msg)
			}
		case err := <-end:
			t.Fatalf("the read failed: %v", err)
		case <-time.After(10 * time.Second):
			t.Fatal("what was written was not read")
		}
	}
	_ = pw.Close()
	if err := <-end; !errors.Is(err, io.EOF) {
		t.Fatalf("after the writer closed: %v, want EOF", err)
	}
}

// A line read ends the expectation; a part of one keeps it (its rest is
// due).
func TestHotReaderLineEndsTheExpectation(t *testing.T) {
	h, r, _, pw := hotPipe(t)
	buf := make([]byte, 64)
	for _, c := range []struct {
		write string
		hot   bool
	}{{"half a mess", true}, {"age\n", false}} {
		h.expect()
		if _, err := pw.WriteString(c.write); err != nil {
			t.Fatal(err)
		}
		n, err := r.Read(buf)
		if err != nil || string(buf[:n]) != c.write {
			t.Fatalf("read %q, %v; want %q", buf[:n], err, c.write)
		}
		if h.until.Load() != 0 != c.hot {
			t.Errorf("after reading %q: still expecting = %v, want %v", c.write, !c.hot, c.hot)
		}
	}
}

// Closing the file ends a read parked in it.
func TestHotReaderCloseEndsAParkedRead(t *testing.T) {
	h, r, pr, _ := hotPipe(t)
	_, end := readAll(r)
	waitUntil(t, "the reader to park", h.parked.Load)
	_ = pr.Close()
	select {
	case err := <-end:
		if !errors.Is(err, os.ErrClosed) {
			t.Fatalf("read after close: %v, want os.ErrClosed", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a read parked in a closed file did not return")
	}
}

// A host's stdin pipe (blocking, as hosts pass it) is read through a
// non-blocking duplicate, and its mode is put back at the end; a regular
// file (or a terminal) is read as it is.
// hostPipe is a pipe as a host's stdin: its read end (and its fd), and
// the host's end; both closed when the test ends.
func hostPipe(t *testing.T) (pr, pw *os.File, fd int) {
	t.Helper()
	var p [2]int
	if err := syscall.Pipe(p[:]); err != nil {
		t.Fatal(err)
	}
	pr, pw = os.NewFile(uintptr(p[0]), "host stdin"), os.NewFile(uintptr(p[1]), "host")
	t.Cleanup(func() { pr.Close(); pw.Close() })
	return pr, pw, p[0]
}

func TestHotStdin(t *testing.T) {
	pr, pw, fd := hostPipe(t)
	r, h, done := hotStdin(pr)
	if h == nil {
		t.Skip("one CPU: nothing spins")
	}
	if !isNonblock(fd) {
		t.Fatal("the host's pipe is not read in non-blocking mode")
	}
	if _, err := pw.WriteString("{}\n"); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 8)
	if n, err := r.Read(buf); err != nil || string(buf[:n]) != "{}\n" {
		t.Fatalf("read %q, %v", buf[:n], err)
	}
	done()
	if isNonblock(fd) {
		t.Error("the host's pipe was left in non-blocking mode")
	}
	if _, err := r.Read(buf); err == nil {
		t.Error("the duplicate is still open after done")
	}

	f, err := os.CreateTemp(t.TempDir(), "stdin")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if r, h, done := hotStdin(f); r != io.Reader(f) || h != nil {
		t.Errorf("a regular file is not read as it is")
	} else {
		done()
	}
}

// done while a read of the host's stdin spins: the read ends and done
// returns. (Putting the blocking mode back before the duplicate was
// closed left a spinning read blocked in the kernel for good, and the
// close waiting on it: measured, a supervisor that did not exit on
// SIGTERM under load.)
func TestHotStdinDoneWhileAReadSpins(t *testing.T) {
	pr, _, fd := hostPipe(t)
	r, h, done := hotStdin(pr)
	if h == nil {
		t.Skip("one CPU: nothing spins")
	}
	_, end := readAll(r)
	h.until.Store(int64(time.Since(h.epoch) + 50*time.Millisecond)) // it spins a while
	finished := make(chan struct{})
	go func() { done(); close(finished) }()
	select {
	case <-finished:
	case <-time.After(10 * time.Second):
		t.Fatal("done did not return while a read spun")
	}
	select {
	case err := <-end:
		if err == nil {
			t.Fatal("the read ended without an error")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the read did not end")
	}
	if isNonblock(fd) {
		t.Error("the host's pipe was left in non-blocking mode")
	}
}
