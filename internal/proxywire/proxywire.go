// Package proxywire is the line protocol between the proxy process
// (`watchdog proxy`, which serves the session-keeping proxies and outlives
// the daemon) and the daemon that follows it: one JSON object a line over
// a unix socket in the state directory (0600, its peer checked to be the
// same user). The proxy process writes what its proxies saw (Sighting),
// the warnings the journal must carry (Warning) and the state of each
// proxy (Proxies); the daemon writes the idle timeouts the servers were
// seen to keep (IdleTimeout). Ids are full on this wire, as in the
// process's memory and its 0600 state: whoever writes them out masks them.
package proxywire

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/mcpwatchdog/watchdog/healer/proxy"
	"github.com/mcpwatchdog/watchdog/internal/health"
)

// SocketName is the proxy process's socket inside the state directory.
const SocketName = "proxy.sock"

// MaxLine bounds one line: a status of MaxStatusSessions sessions per
// proxy fits many times over, and a peer that sends more is cut off.
const MaxLine = 16 << 20

// ErrLineTooLong: a line longer than MaxLine; the connection is useless.
var ErrLineTooLong = errors.New("proxywire: line too long")

// Message is one line; exactly one field is set.
type Message struct {
	Sighting    *Sighting    `json:"sighting,omitempty"`
	Warning     *Warning     `json:"warning,omitempty"`
	Proxies     *Proxies     `json:"proxies,omitempty"`
	IdleTimeout *IdleTimeout `json:"idle_timeout,omitempty"`
	Stdio       *Stdio       `json:"stdio,omitempty"`
	Sockets     *Sockets     `json:"sockets,omitempty"`
	Stop        *Stop        `json:"stop,omitempty"`
}

// Sockets names the listening sockets whose descriptors ride with its
// line (SCM_RIGHTS, WriteWithFiles), in order: the proxy process hands
// each daemon that links a duplicate of every socket it serves, so that
// the daemon holds them while the proxy process restarts, as a socket
// unit does, and passes them to the next one.
type Sockets struct {
	Listen []string `json:"listen"`
}

// Stop asks the proxy process to end: the watchdog was stopped on purpose
// (a daemon that crashes sends none, and the proxies go on).
type Stop struct {
	Why string `json:"why"`
}

// Sighting is a proxy.Sighting on the wire, its kind by name.
type Sighting struct {
	Kind        string        `json:"kind"`
	Server      string        `json:"server"`
	Time        time.Time     `json:"time"`
	HostSession string        `json:"host_session,omitempty"`
	Upstream    string        `json:"upstream,omitempty"`
	OldUpstream string        `json:"old_upstream,omitempty"`
	Client      string        `json:"client,omitempty"`
	Took        time.Duration `json:"took,omitempty"`
	UID         int           `json:"uid,omitempty"`
	Known       time.Time     `json:"known,omitzero"` // when the server said what a host was attached from
	Detail      string        `json:"detail,omitempty"`
}

// FromSighting is ev on the wire.
func FromSighting(ev proxy.Sighting) Sighting {
	return Sighting{Kind: ev.Kind.String(), Server: ev.Server, Time: ev.Time, HostSession: ev.HostSession, Upstream: ev.Upstream,
		OldUpstream: ev.OldUpstream, Client: ev.Client, Took: ev.Took, UID: ev.UID, Known: ev.Known, Detail: ev.Detail}
}

// Proxy is s as the proxy package has it; false for a kind this build
// does not know (a newer proxy process than the daemon).
func (s Sighting) Proxy() (proxy.Sighting, bool) {
	k, ok := proxy.ParseSightingKind(s.Kind)
	return proxy.Sighting{Kind: k, Server: s.Server, Time: s.Time, HostSession: s.HostSession, Upstream: s.Upstream,
		OldUpstream: s.OldUpstream, Client: s.Client, Took: s.Took, UID: s.UID, Known: s.Known, Detail: s.Detail}, ok
}

// Warning is one sentence for the journal, about a server or ("") none.
type Warning struct {
	Server string `json:"server,omitempty"`
	Detail string `json:"detail"`
}

// Proxies is the state of every proxy the process is told to serve, sent
// when a daemon connects, at each change and every StatusEvery.
type Proxies struct {
	PID     int     `json:"pid"`
	Proxies []Proxy `json:"proxies"`
}

// StatusEvery is how often the proxy process sends Proxies unasked: the
// idle times of the sessions in `watchdog status` are at most this old.
const StatusEvery = time.Second

// Proxy is one proxy's state.
type Proxy struct {
	Server   string                `json:"server"`
	Listen   string                `json:"listen"`
	Served   bool                  `json:"served"`
	Problem  string                `json:"problem,omitempty"` // why it is not served
	Socket   string                `json:"socket,omitempty"`  // the supervisor that passed its socket
	Era      string                `json:"era,omitempty"`
	Bridges  bool                  `json:"bridges,omitempty"`
	Sessions []health.ProxySession `json:"sessions,omitempty"`
	Fast     uint64                `json:"fast,omitempty"`
	General  map[string]uint64     `json:"general,omitempty"`
}

// IdleTimeout is the idle timeout a server announced or was seen to keep.
type IdleTimeout struct {
	Server  string        `json:"server"`
	Timeout time.Duration `json:"timeout"`
}

// StdioDir is the folder inside the state directory where each stdio
// supervisor (`watchdog stdio`) listens while it runs, on "<pid>.sock":
// the daemon follows every socket there as it follows the proxy process.
const StdioDir = "stdio"

// Stdio is one thing a stdio supervisor saw of the server it runs: sent
// by `watchdog stdio` to every daemon that follows it, what it saw while
// none did kept (bounded) and sent first.
type Stdio struct {
	// Kind is what happened: StdioStarted, StdioExited, ...
	Kind string `json:"kind"`
	// Host is the host's profile name the supervisor runs under ("" when
	// it was not told); Server the server's name in the host's file.
	Host   string    `json:"host,omitempty"`
	Server string    `json:"server"`
	Time   time.Time `json:"time"`
	// PID is the supervisor's process; Child the server's, when it has one.
	PID   int `json:"pid"`
	Child int `json:"child,omitempty"`
	// Starts counts the server's starts under this supervisor, the first
	// included.
	Starts int `json:"starts,omitempty"`
	// Took is how long a restart took, from the death to the server
	// answering the replayed initialize.
	Took time.Duration `json:"took,omitempty"`
	// Exit is how the server ended ("signal: killed", "exit status 1").
	Exit string `json:"exit,omitempty"`
	// Method is the failed call's method (StdioCallFailed).
	Method string `json:"method,omitempty"`
	// Stderr is the server's last line on stderr, when it wrote one.
	Stderr string `json:"stderr,omitempty"`
	// Detail is one sentence for the journal.
	Detail string `json:"detail"`
}

// The kinds of Stdio.
const (
	StdioStarted    = "started"     // the first start
	StdioExited     = "exited"      // died while the host was connected
	StdioRestarted  = "restarted"   // started again and re-initialized
	StdioCallFailed = "call_failed" // a call in flight when it died was answered with an error
	StdioGaveUp     = "gave_up"     // a crash loop: no more restarts for now
	StdioHung       = "hung"        // a request and a ping unanswered
	StdioChanged    = "changed"     // came back with another version or capabilities
	StdioEnded      = "ended"       // the host went; the server was ended with it
)

// Reader reads messages, one a line.
type Reader struct{ sc *bufio.Scanner }

// NewReader reads from r.
func NewReader(r io.Reader) *Reader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), MaxLine)
	return &Reader{sc: sc}
}

// Read is the next message; io.EOF at the end. A line that is not a
// message is an error naming it; the next Read goes on after it.
func (r *Reader) Read() (Message, error) {
	if !r.sc.Scan() {
		if err := r.sc.Err(); err != nil {
			if errors.Is(err, bufio.ErrTooLong) {
				return Message{}, ErrLineTooLong
			}
			return Message{}, fmt.Errorf("proxywire: %w", err)
		}
		return Message{}, io.EOF
	}
	var m Message
	if err := json.Unmarshal(r.sc.Bytes(), &m); err != nil {
		return Message{}, fmt.Errorf("proxywire: a line that is not a message: %w", err)
	}
	return m, nil
}

// Encode is m as one line, newline included.
func Encode(m Message) ([]byte, error) {
	b, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("proxywire: %w", err)
	}
	return append(b, '\n'), nil
}
