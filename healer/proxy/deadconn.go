package proxy

import (
	"context"
	"net"
	"net/http/httptrace"
	"sync/atomic"
	"syscall"
)

// A kept connection that the server closed while it lay idle (a restart,
// its own idle limit) has carried nothing of the next request yet; net/http
// notices the close only when its reader goroutine runs. Picked before
// that (a busy machine, a call right after the server went), either the
// request is written on it and the answer read is the end, an error the
// proxy may not send again since a server could have run the request; or
// net/http fails it unwritten ("server closed idle connection") and, the
// request being a POST, does not send it again itself. The fast path
// looks before it sends (upConn.alive); keptTrace is that look for
// net/http, and the one resend that is safe: of a request not all written.

// keptTrace follows one upstream request on net/http: whether it went on
// a kept connection, and whether all of it was written.
type keptTrace struct{ reused, wrote atomic.Bool }

// context carries the trace. A kept connection whose server ended it is
// closed before a byte is written on it.
func (k *keptTrace) context(ctx context.Context) context.Context {
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		GotConn: func(i httptrace.GotConnInfo) {
			k.reused.Store(i.Reused)
			if i.Reused && ended(i.Conn) {
				_ = i.Conn.Close()
			}
		},
		WroteRequest: func(i httptrace.WroteRequestInfo) { k.wrote.Store(i.Err == nil) },
	})
}

// unsent reports whether the request failed on a kept connection before
// all of it was written: the server cannot have run a request it did not
// read whole, so it may go again, on another connection.
func (k *keptTrace) unsent() bool { return k.reused.Load() && !k.wrote.Load() }

// ended reports whether the server closed c, or sent on it what nobody
// asked for. Control, not Read: net/http's reader holds the read side.
func ended(c net.Conn) bool {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return false
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	idle := true
	if raw.Control(func(fd uintptr) { idle = idleSocket(fd) }) != nil {
		return false
	}
	return !idle
}

// idleSocket reports whether a connection waiting for its next request has
// nothing to read: neither its end, nor an error, nor bytes nobody asked
// for. The one look both paths take before reusing a connection.
func idleSocket(fd uintptr) bool {
	_, errno := peekSocket(fd)
	return errno == syscall.EAGAIN
}
