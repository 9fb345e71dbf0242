package soak

import (
	"time"

	"github.com/mcpwatchdog/watchdog/internal/journal"
)

// ServerEvent is a server's own word about one session: it started one
// (with the client's name) or ended one (with the reason).
type ServerEvent struct {
	At     time.Time
	Server string
	Start  bool
	ID     string
	Client string // starts
	Reason string // ends: idle, deleted, forgotten, closed
}

// Span is a stretch of real time; a zero To means it had not ended.
type Span struct{ From, To time.Time }

func (s Span) contains(t time.Time) bool {
	return !t.Before(s.From) && (s.To.IsZero() || !t.After(s.To))
}

// Seen is a journal record and the real time the soak read it.
type Seen struct {
	At  time.Time
	Rec journal.Record
}

// Note is a desktop notification and when the bus delivered it.
type Note struct {
	At          time.Time
	Title, Body string
}

// ServerInfo is what the evaluation needs of a server's configuration.
type ServerInfo struct {
	Timeout  time.Duration
	KeepWarm bool
}

// Input is everything a soak observed, in real time.
type Input struct {
	Servers    map[string]ServerInfo
	HostClient string
	Events     []ServerEvent
	// ServerDown: per server, from its kill -9 to the moment its restarted
	// process listened with a fresh store; the sessions it had end there.
	ServerDown map[string][]Span
	// Hosts are the host process's runs, from start to kill.
	Hosts []Span
	// WatchdogDown: from each kill -9 to the restarted daemon's readiness.
	WatchdogDown []Span
	// SocketsHeld: a supervisor held the proxies' sockets while the daemon
	// was down (as systemd's socket unit does), so a call made then waits
	// for the restarted daemon: only a call in flight at the kill itself
	// may fail. False: the proxies' ports were closed while it was down.
	SocketsHeld bool
	// ProxyApart: the proxies ran in a process of their own (watchdog
	// proxy) beside the daemon, so a kill of the daemon cuts no call at
	// all; ProxyDown: from each kill -9 of that process to the daemon's
	// word that it serves again. Its supervisor held the sockets too: a
	// call in flight at its kill may fail, no other.
	ProxyApart bool
	ProxyDown  []Span
	// JournalFault: each injected journal write failure, from the fault
	// file's creation to its removal. What the daemon decided meanwhile is
	// written after it, so it is judged from the span's end.
	JournalFault []Span
	// Beacons: while the host's beacon was live (written by a process that
	// still ran), one span per run of a beacon-writing host. Empty: the
	// host wrote none.
	Beacons []Span
	// Reminder is how often the daemon says an incident is still open
	// (internal/notify's default); zero: no reminder is expected.
	Reminder time.Duration
	Journal  []Seen
	Notes    []Note
	End      time.Time
	// Stopped is when the daemon was stopped for good (zero: never).
	Stopped time.Time
	// Proxied are the config entries reached through the watchdog's proxy,
	// by their names (also in Servers); Calls are the calls made through
	// them and Executions every echo call the servers ran.
	Proxied    map[string]ProxiedServer
	Calls      []CallRecord
	Executions []Execution
	// Late are the hosts started through a proxy while its server was
	// down (late.go).
	Late []LateHost
}

// session is one session's ground truth.
type session struct {
	server, id, client string
	start, end         time.Time // end zero: still alive when the soak ended
	reason             string    // idle, deleted, forgotten, closed, killed
	// died is when the session stopped existing: end, or for a kill the
	// kill itself (end is then the restart, when the loss shows).
	died time.Time
}

// sessions joins the servers' starts and ends with their kills.
func (in Input) sessions() []*session {
	byKey := map[string]*session{}
	var order []*session
	for _, ev := range in.Events {
		key := ev.Server + "\x00" + ev.ID
		s := byKey[key]
		if ev.Start {
			if s == nil {
				s = &session{server: ev.Server, id: ev.ID, client: ev.Client, start: ev.At}
				byKey[key] = s
				order = append(order, s)
			}
			continue
		}
		if s != nil && s.end.IsZero() {
			s.end, s.died, s.reason = ev.At, ev.At, ev.Reason
		}
	}
	for _, s := range order {
		if !s.end.IsZero() {
			continue
		}
		for _, down := range in.ServerDown[s.server] {
			if s.start.Before(down.From) {
				s.end, s.died, s.reason = down.To, down.From, "killed"
				if down.To.IsZero() {
					s.end = down.From
				}
				break
			}
		}
	}
	return order
}
