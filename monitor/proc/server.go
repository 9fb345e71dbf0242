package proc

import (
	"context"
	"net"
	"net/url"
	"strconv"
	"time"
)

// Server follows the process serving a server's port on this machine, so a store snapshot can say whether the server restarted since
// the last one (what vanished then was ended by the restart, not by idle).
// It is owned by its store's goroutine.
type Server struct {
	port int              // 0: not on this machine, or no port: never looked up
	now  func() time.Time // the caller's clock
	last Host
	// lastStarted is last's start in the caller's clock, read once: the
	// system gives process starts in its own clock, which a debug skew
	// leaves behind, and a re-read across a skew change would look like
	// another process.
	lastStarted time.Time
	// goneAt: when the process last found serving the port was seen gone,
	// with none serving it since. That is a restart as of then.
	goneAt time.Time
}

// NewServer follows the process serving rawURL's port when the URL is on
// this machine (loopback); now is the caller's clock, which may run apart
// from the system's.
func NewServer(rawURL string, now func() time.Time) *Server {
	return &Server{port: loopbackPort(rawURL), now: now}
}

// Started is when the process now serving the port started; zero when
// unknown. While the last one found still runs it costs one pid check.
// When it is gone and none serves the port yet (killed, not yet back),
// it is the moment that was seen, and gone is true: the sessions the store
// drops meanwhile went with the server, whatever their idle time.
func (p *Server) Started(ctx context.Context) (started time.Time, gone bool) {
	if p.port == 0 {
		return time.Time{}, false
	}
	if p.last.PID != 0 {
		ok, err := Alive(ctx, p.last)
		if err == nil && ok {
			return p.lastStarted, false
		}
		if err == nil {
			p.goneAt = p.now()
		}
	}
	h, found, err := Find(ctx, Target{Port: p.port})
	if err != nil || !found {
		p.last = Host{}
		return p.goneAt, !p.goneAt.IsZero()
	}
	p.last, p.goneAt = h, time.Time{}
	// Began, not Started: it is ordered against the sessions' activity,
	// and Started can be a second early (see Began).
	p.lastStarted = Began(h).Add(time.Until(p.now()))
	return p.lastStarted, false
}

// loopbackPort is the TCP port of a URL on this machine, or 0.
func loopbackPort(rawURL string) int {
	u, err := url.Parse(rawURL)
	if err != nil {
		return 0
	}
	host := u.Hostname()
	if ip := net.ParseIP(host); (ip == nil || !ip.IsLoopback()) && host != "localhost" {
		return 0
	}
	port, err := strconv.Atoi(u.Port())
	if err != nil {
		switch u.Scheme {
		case "http":
			return 80
		case "https":
			return 443
		}
		return 0
	}
	return port
}
