package proxy

import (
	"net"
	"sync"
	"syscall"
	"time"
)

// watchAfter is how long a fast call runs before the proxy watches its
// host's connection for the host going away.
const watchAfter = 200 * time.Millisecond

// hostWatch notices a host that goes away while its call waits on the
// server, or streams: the server's request is then ended (its upstream
// connection closed), as net/http's server ends a request whose
// connection closed. net/http reads every connection in the background
// for that; the fast path starts a watcher only for a call still running
// after watchAfter, so a common call starts none. Its timer is not reset
// per call either (each reset to the earliest timer wakes a thread to
// poll the network): it ticks while calls run, at most every watchAfter,
// and rests while the connection is idle.
type hostWatch struct {
	conn  net.Conn
	rd    *lazyDeadline   // conn's read deadline, which a watcher borrows
	raw   syscall.RawConn // nil: not a socket it can watch
	timer *time.Timer

	mu       sync.Mutex
	ended    *sync.Cond // a watcher returned
	up       net.Conn   // the call under way's upstream connection; nil between calls
	since    time.Time  // when that call began
	gone     bool       // the host went away during it
	armed    bool       // the timer is set
	watching bool       // a watcher waits on the host's connection
	watched  bool       // one did during this call: the connection's deadline was taken away
	closed   bool
}

func (w *hostWatch) init(c net.Conn, rd *lazyDeadline) {
	w.conn, w.rd = c, rd
	if sc, ok := c.(syscall.Conn); ok {
		w.raw, _ = sc.SyscallConn()
	}
	w.ended = sync.NewCond(&w.mu)
}

// arm watches the call on up, begun at since.
func (w *hostWatch) arm(up net.Conn, since time.Time) {
	if w.raw == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.up, w.since, w.gone = up, since, false
	if w.armed || w.closed {
		return
	}
	w.armed = true
	if w.timer == nil {
		w.timer = time.AfterFunc(watchAfter, w.tick)
		return
	}
	w.timer.Reset(watchAfter)
}

// disarm ends the watch of the call; it reports whether the host went
// away meanwhile. A watcher that waits is stopped (a read deadline in the
// past ends its wait) and waited for; the connection's next read sets its
// deadline anew.
func (w *hostWatch) disarm() (gone bool) {
	if w.raw == nil {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.up = nil
	if w.watching {
		w.mu.Unlock()
		w.rd.force(time.Unix(1, 0))
		w.mu.Lock()
		for w.watching {
			w.ended.Wait()
		}
	}
	if w.watched {
		w.watched = false
		w.rd.at = time.Time{} // unknown: the next read sets it
	}
	return w.gone
}

// stop ends the watch for good (the connection ends or is given away).
// Between calls no watcher runs: disarm waited for any that started.
func (w *hostWatch) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closed = true
	if w.timer != nil {
		w.timer.Stop()
	}
}

// tick looks at the call under way: one that has run watchAfter is
// watched; a younger one is looked at again when it will have; without
// one the timer rests until the next call.
func (w *hostWatch) tick() {
	w.mu.Lock()
	if w.up == nil || w.closed {
		w.armed = false
		w.mu.Unlock()
		return
	}
	if age := time.Since(w.since); age < watchAfter {
		w.timer.Reset(watchAfter - age)
		w.mu.Unlock()
		return
	}
	w.armed, w.watching, w.watched = false, true, true
	// The connection's own deadline (its idle timeout) is taken away: a
	// call may stream for longer. Under mu, so disarm's deadline in the
	// past comes after it.
	_ = w.conn.SetReadDeadline(time.Time{})
	up := w.up
	w.mu.Unlock()
	gone := w.watch()
	w.mu.Lock()
	if gone {
		_ = up.Close() // before disarm can hear of the end: the connection is never kept
	}
	w.watching = false
	w.gone = w.gone || gone
	w.ended.Broadcast()
	w.mu.Unlock()
}

// watch waits until the host's connection can be read: the end of it (the
// host went away: true), or more bytes (the host sent its next request:
// it is there), or the deadline disarm sets.
func (w *hostWatch) watch() bool {
	eof := false
	err := w.raw.Read(func(fd uintptr) bool {
		n, errno := peekSocket(fd)
		if errno == syscall.EAGAIN {
			return false
		}
		eof = n == 0 || errno != 0
		return true
	})
	return err == nil && eof
}
