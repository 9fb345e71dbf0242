package proxy

import (
	"errors"
	"net"
	"os"
	"time"
)

// lazyDeadline moves a connection's read deadline only when it must: a
// busy connection would otherwise pay a runtime timer update on every
// request. A deadline may come up to the slack given early (an idle
// connection closed at 1:58 instead of 2:00), never late. Only the
// connection's own goroutine uses it.
type lazyDeadline struct {
	conn net.Conn
	at   time.Time // as last set; zero: none
}

// set makes the deadline at, or leaves one at most slack before it.
func (d *lazyDeadline) set(at time.Time, slack time.Duration) {
	if !d.at.IsZero() && !d.at.After(at) && at.Sub(d.at) <= slack {
		return
	}
	d.force(at)
}

// force sets the deadline at, whatever it was.
func (d *lazyDeadline) force(at time.Time) {
	_ = d.conn.SetReadDeadline(at)
	d.at = at
}

// clear takes the deadline away.
func (d *lazyDeadline) clear() {
	if !d.at.IsZero() {
		d.force(time.Time{})
	}
}

// isTimeout reports whether err is a read deadline that passed.
func isTimeout(err error) bool { return errors.Is(err, os.ErrDeadlineExceeded) }
