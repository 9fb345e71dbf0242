package tsserver

import (
	"strings"
	"time"
)

// EventKind says whether a session started or ended, or ran a call.
type EventKind string

const (
	// EventStart is a SESSION_START line: the server created a session.
	EventStart EventKind = "start"
	// EventEnd is a SESSION_END line: the server ended a session.
	EventEnd EventKind = "end"
	// EventCall is a TOOL_CALL line: the echo tool ran, with Text as its
	// argument; a test counts executions by it (none may run twice).
	EventCall EventKind = "call"
)

// Event is one session line of the server's stdout, the ground truth about its
// sessions, stamped with the wall time the Go side read it.
type Event struct {
	Kind EventKind
	// ID is the full session id (the server's own truth; mask it before logging).
	ID string
	// Client is the clientInfo.name of the initialize request (start only); "" when the
	// client sent none. A name with a line break reads back with spaces in its place.
	Client string
	// Reason is why the session ended (end only): idle, deleted, forgotten or closed.
	Reason string
	// Text is the echo call's argument (call only), line breaks as spaces.
	Text string
	// At is when the stdout reader read the line.
	At time.Time
}

// ParseEvent reads one stdout line of the TypeScript server, or of the Go
// demo server run with -events (the same lines):
//
//	SESSION_START <id> <client>   client is the rest of the line; "-" means none
//	SESSION_START <id>            the older form, no client
//	SESSION_END <id> <reason>
//	TOOL_CALL <id> <text>         text is the rest of the line; id "-": no session
//
// ok is false for any other line.
func ParseEvent(line string, at time.Time) (Event, bool) {
	if rest, found := strings.CutPrefix(line, "TOOL_CALL "); found {
		id, text, _ := strings.Cut(rest, " ")
		if id == "" {
			return Event{}, false
		}
		return Event{Kind: EventCall, ID: id, Text: text, At: at}, true
	}
	if rest, found := strings.CutPrefix(line, "SESSION_START "); found {
		id, client, _ := strings.Cut(rest, " ")
		if id == "" {
			return Event{}, false
		}
		if client == "-" {
			client = ""
		}
		return Event{Kind: EventStart, ID: id, Client: client, At: at}, true
	}
	if rest, found := strings.CutPrefix(line, "SESSION_END "); found {
		id, reason, _ := strings.Cut(rest, " ")
		if id == "" || reason == "" || strings.Contains(reason, " ") {
			return Event{}, false
		}
		return Event{Kind: EventEnd, ID: id, Reason: reason, At: at}, true
	}
	return Event{}, false
}
