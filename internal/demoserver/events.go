package demoserver

import "github.com/mcpwatchdog/watchdog/internal/demoserver/truth"

// EventKind, its values and Event are truth's: what every test server
// says of its sessions, here handed over in process (Options.OnEvent).
type (
	EventKind = truth.Kind
	Event     = truth.Event
)

// The kinds of Event.
const (
	EventStart = truth.Start
	EventEnd   = truth.End
	EventCall  = truth.Call
)

// emit hands e to Options.OnEvent. Callers hold evMu, which keeps the calls
// one at a time and each session's start before its end.
func (s *Server) emit(e Event) {
	if s.opts.OnEvent != nil {
		s.opts.OnEvent(e)
	}
}
