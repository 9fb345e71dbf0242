package beacon

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/mask"
)

// The states a client reports for one server.
const (
	// Connected: a session is open (SessionID may be empty for a
	// stateless server, which issues none).
	Connected = "connected"
	// Reconnecting: the client lost its connection and is trying again.
	Reconnecting = "reconnecting"
	// Down: the client has given up on the server, or never reached it.
	Down = "down"
)

// Server is one server as the client sees it.
type Server struct {
	Name string
	URL  string
	// SessionID is the full id the client holds, or empty: a credential,
	// never to be logged or returned whole (see internal/mask).
	SessionID string
	State     string // Connected, Reconnecting or Down
	// ConnectedSince, LastRequest and Updated are zero when the client
	// wrote null.
	ConnectedSince time.Time
	LastRequest    time.Time
	Updated        time.Time // when this entry last changed
}

// String masks the session id and redacts the URL (a query token), so
// that printing a Server (or a Client, whose servers print through this)
// does not leak them.
func (s Server) String() string {
	return fmt.Sprintf("{%s %s session %s %s}", s.Name, mask.URL(s.URL), mask.ID(s.SessionID), s.State)
}

// LogValue masks the session id and redacts the URL in structured logs.
func (s Server) LogValue() slog.Value {
	return slog.GroupValue(slog.String("name", s.Name), slog.String("url", mask.URL(s.URL)),
		slog.String("session", mask.ID(s.SessionID)), slog.String("state", s.State))
}

// Client is one live client process and what its beacon says.
type Client struct {
	PID int32
	// Started is the process's start time as monitor/proc.Host.Started:
	// with PID it names this run of the process (pids are reused).
	Started time.Time
	Path    string    // the beacon file
	Updated time.Time // when the client last wrote it; zero when it wrote null
	Servers []Server
}

// Server returns the entry of the named server.
func (c Client) Server(name string) (Server, bool) {
	for _, s := range c.Servers {
		if s.Name == name {
			return s, true
		}
	}
	return Server{}, false
}

// equal compares field by field: times by Equal, so that a location or
// monotonic reading cannot make two equal beacons differ.
func (c Client) equal(o Client) bool {
	if c.PID != o.PID || !c.Started.Equal(o.Started) || c.Path != o.Path ||
		!c.Updated.Equal(o.Updated) || len(c.Servers) != len(o.Servers) {
		return false
	}
	for i, s := range c.Servers {
		t := o.Servers[i]
		if s.Name != t.Name || s.URL != t.URL || s.SessionID != t.SessionID || s.State != t.State ||
			!s.ConnectedSince.Equal(t.ConnectedSince) || !s.LastRequest.Equal(t.LastRequest) ||
			!s.Updated.Equal(t.Updated) {
			return false
		}
	}
	return true
}
