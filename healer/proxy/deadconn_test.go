package proxy_test

import (
	"context"
	"net"
	"net/http"
	"sync"
	"syscall"
	"testing"
)

// A server restarted between two calls closed the proxy's kept connection
// while it lay idle. net/http's reader, here held until the next request
// is written (as a busy machine holds it, unscheduled), has not seen that
// close: the call must not be written on the ended connection and lost
// with it (an EOF the proxy may not send again), nor failed unwritten
// ("server closed idle connection", which net/http does not send again
// for a POST), but wait for the server and run once
// (TestBridgeWaitsOutARestart, its reader late). Both failed before
// deadconn.go.
func TestNetHTTPSkipsAConnectionItsServerEnded(t *testing.T) {
	bridgeWaitsOutARestart(t, transport{"net/http, its reader late", &http.Client{Transport: &http.Transport{DialContext: dialHeld}}})
}

// dialHeld dials a connection whose reads' end (the server's close, an
// error) reaches its reader only once something more is written on it, or
// it is closed.
func dialHeld(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return &heldConn{TCPConn: c.(*net.TCPConn)}, nil
}

type heldConn struct {
	*net.TCPConn
	mu     sync.Mutex
	held   chan struct{} // a read's end, waiting for a write
	closed bool
}

func (c *heldConn) Read(b []byte) (int, error) {
	n, err := c.TCPConn.Read(b)
	if err != nil {
		c.mu.Lock()
		if c.closed {
			c.mu.Unlock()
			return n, err
		}
		held := make(chan struct{})
		c.held = held
		c.mu.Unlock()
		<-held
	}
	return n, err
}

func (c *heldConn) Write(b []byte) (int, error) {
	n, err := c.TCPConn.Write(b)
	c.let()
	return n, err
}

func (c *heldConn) Close() error {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	c.let()
	return c.TCPConn.Close()
}

// let lets a held read's end reach its reader.
func (c *heldConn) let() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.held != nil {
		close(c.held)
		c.held = nil
	}
}

// SyscallConn is the socket's own, as a plain connection's.
func (c *heldConn) SyscallConn() (syscall.RawConn, error) { return c.TCPConn.SyscallConn() }
