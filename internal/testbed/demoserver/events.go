package demoserver

import "time"

// EventKind says whether a session started or ended, or ran a call.
type EventKind string

const (
	// EventStart: the server created a session (its initialize succeeded).
	EventStart EventKind = "start"
	// EventEnd: the server ended a session.
	EventEnd EventKind = "end"
	// EventCall: the echo tool ran in a session, with Text as its argument:
	// a test counts executions by it (none may run twice).
	EventCall EventKind = "call"
)

// Event is one session start or end as the server recorded it: ground truth
// a test compares the watchdog against.
type Event struct {
	Kind EventKind
	// ID is the full session id (the server's own truth; mask it before logging).
	ID string
	// Client is the session's clientInfo.name, on both kinds; "" when none was sent.
	Client string
	// Reason is why the session ended (EventEnd only).
	Reason Reason
	// Text is the echo tool's argument (EventCall only).
	Text string
	// At is when the server recorded it, by Options.Now.
	At time.Time
}

// emit hands e to Options.OnEvent. Callers hold evMu, which keeps the calls
// one at a time and each session's start before its end.
func (s *Server) emit(e Event) {
	if s.opts.OnEvent != nil {
		s.opts.OnEvent(e)
	}
}
