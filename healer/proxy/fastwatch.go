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
// after watchAfter, so a common call starts none.
type hostWatch struct {
	conn  net.Conn
	rd    *lazyDeadline   // conn's read deadline, which the watch borrows
	raw   syscall.RawConn // nil: not a socket it can watch
	timer *time.Timer
	done  chan struct{} // a watcher returned

	mu       sync.Mutex
	up       net.Conn // the call's upstream connection, closed if the host goes
	gone     bool
	stopping bool // disarm is ending the watch: a watcher must not start waiting
}

func (w *hostWatch) init(c net.Conn, rd *lazyDeadline) {
	w.conn, w.rd = c, rd
	if sc, ok := c.(syscall.Conn); ok {
		w.raw, _ = sc.SyscallConn()
	}
	w.done = make(chan struct{}, 1)
}

// arm starts watching for the call on up.
func (w *hostWatch) arm(up net.Conn) {
	if w.raw == nil {
		return
	}
	w.mu.Lock()
	w.up, w.gone, w.stopping = up, false, false
	w.mu.Unlock()
	if w.timer == nil {
		w.timer = time.AfterFunc(watchAfter, w.watch)
		return
	}
	w.timer.Reset(watchAfter)
}

// disarm ends the watch of the call; it reports whether the host went
// away meanwhile. A watcher that started is stopped (a read deadline in
// the past ends its wait) and waited for; the connection's next read sets
// its deadline anew.
func (w *hostWatch) disarm() (gone bool) {
	if w.raw == nil {
		return false
	}
	if !w.timer.Stop() {
		w.mu.Lock()
		w.stopping = true
		w.mu.Unlock()
		w.rd.force(time.Unix(1, 0))
		<-w.done
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.up = nil
	return w.gone
}

// stop ends any watch for good (the connection ends or is given away).
// Between calls no watcher runs: disarm waited for any that started.
func (w *hostWatch) stop() {
	if w.timer != nil {
		w.timer.Stop()
	}
}

// watch waits until the host's connection can be read: the end of it
// (the host went away: its call's upstream connection is closed), or
// more bytes (the host sent its next request: it is there), or the
// deadline disarm sets. The connection's own deadline (its idle
// timeout) is taken away first: a call may stream for longer.
func (w *hostWatch) watch() {
	defer func() { w.done <- struct{}{} }()
	w.mu.Lock()
	if w.stopping {
		w.mu.Unlock()
		return
	}
	_ = w.conn.SetReadDeadline(time.Time{})
	w.mu.Unlock()
	eof := false
	err := w.raw.Read(func(fd uintptr) bool {
		n, errno := peekSocket(fd)
		if errno == syscall.EAGAIN {
			return false
		}
		eof = n == 0 || errno != 0
		return true
	})
	if err != nil || !eof {
		return
	}
	w.mu.Lock()
	w.gone = true
	up := w.up
	w.mu.Unlock()
	if up != nil {
		_ = up.Close()
	}
}
