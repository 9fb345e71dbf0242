// Package truth is what a test server says of its own sessions: each
// start, end and tool call, the ground truth a test judges the watchdog
// against. The Go demo server hands these over in process (its OnEvent)
// and prints them with -events; the TypeScript, Python and other servers
// print them on stdout, one line each (Parse).
package truth

import (
	"strings"
	"time"
)

// Kind says whether a session started or ended, or ran a call.
type Kind string

const (
	// Start: the server created a session (its initialize succeeded); a
	// SESSION_START line.
	Start Kind = "start"
	// End: the server ended a session; a SESSION_END line.
	End Kind = "end"
	// Call: the echo tool ran in a session, with Text as its argument (a
	// TOOL_CALL line): a test counts executions by it (none may run twice).
	Call Kind = "call"
)

// Event is one session start, end or call as the server recorded it.
type Event struct {
	Kind Kind
	// ID is the full session id (the server's own truth; mask it before logging).
	ID string
	// Client is the session's clientInfo.name; "" when none was sent. A name
	// with a line break reads back from a line with spaces in its place.
	Client string
	// Reason is why the session ended (End only): idle_timeout, deleted,
	// shutdown, forgotten, closed.
	Reason string
	// Text is the echo tool's argument (Call only); from a line, line
	// breaks read back as spaces.
	Text string
	// At is when the server recorded it, or when its line was read.
	At time.Time
}

// Parse reads one stdout line of the TypeScript server, or of the Go demo
// server run with -events (the same lines):
//
//	SESSION_START <id> <client>   client is the rest of the line; "-" means none
//	SESSION_START <id>            the older form, no client
//	SESSION_END <id> <reason>
//	TOOL_CALL <id> <text>         text is the rest of the line; id "-": no session
//
// ok is false for any other line.
func Parse(line string, at time.Time) (Event, bool) {
	if rest, found := strings.CutPrefix(line, "TOOL_CALL "); found {
		id, text, _ := strings.Cut(rest, " ")
		if id == "" {
			return Event{}, false
		}
		return Event{Kind: Call, ID: id, Text: text, At: at}, true
	}
	if rest, found := strings.CutPrefix(line, "SESSION_START "); found {
		id, client, _ := strings.Cut(rest, " ")
		if id == "" {
			return Event{}, false
		}
		if client == "-" {
			client = ""
		}
		return Event{Kind: Start, ID: id, Client: client, At: at}, true
	}
	if rest, found := strings.CutPrefix(line, "SESSION_END "); found {
		id, reason, _ := strings.Cut(rest, " ")
		if id == "" || reason == "" || strings.Contains(reason, " ") {
			return Event{}, false
		}
		return Event{Kind: End, ID: id, Reason: reason, At: at}, true
	}
	return Event{}, false
}
