package classify

import "fmt"

// Kind is what a classified log line says about an MCP session.
type Kind int

// The zero Kind is not a signal; Line never returns it with ok == true.
const (
	// SessionLost: the server no longer knows the session (404 "Session not
	// found" in its spellings, a POST answered 404, the TypeScript example
	// servers' 400 "No valid session ID provided", "Session terminated").
	SessionLost Kind = iota + 1
	// IdleTimeoutAnnounced: the server logged its idle timeout and session
	// store at start (Nowledge Mem); see Match.IdleTimeout and Match.StorePath.
	IdleTimeoutAnnounced
	// LegacyHeaderRejected: the server rejects the legacy Mcp-Session-Id
	// header or a legacy protocol version.
	LegacyHeaderRejected
	// Reconnected: a client reports that its connection is back.
	Reconnected
	// SSEStream404: the standalone GET SSE stream got 404. Only a hint: some
	// servers answer GET with 404 while the session is alive, so this must be
	// confirmed (by a POST such as ping) before a session is called lost.
	SSEStream404
	// SessionClosed: the server says it ended a session, and why; see
	// Match.EndReason. Lines that give no reason it is sure of are not
	// classified.
	SessionClosed
)

// lastKind is the highest Kind.
const lastKind = SessionClosed

// Kinds lists every valid Kind in a stable order.
func Kinds() []Kind {
	return []Kind{SessionLost, IdleTimeoutAnnounced, LegacyHeaderRejected, Reconnected, SSEStream404, SessionClosed}
}

// Valid reports whether k is one of the declared kinds (not zero).
func (k Kind) Valid() bool { return k >= SessionLost && k <= lastKind }

func (k Kind) String() string {
	switch k {
	case 0:
		return "none"
	case SessionLost:
		return "session_lost"
	case IdleTimeoutAnnounced:
		return "idle_timeout"
	case LegacyHeaderRejected:
		return "legacy_header_rejected"
	case Reconnected:
		return "reconnected"
	case SSEStream404:
		return "sse_stream_404"
	case SessionClosed:
		return "session_closed"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// MarshalText writes the kind's name, so JSON carries "session_lost" etc.
func (k Kind) MarshalText() ([]byte, error) {
	if !k.Valid() {
		return nil, fmt.Errorf("classify: invalid kind %d", int(k))
	}
	return []byte(k.String()), nil
}

// UnmarshalText accepts the names String returns.
func (k *Kind) UnmarshalText(b []byte) error {
	for _, c := range Kinds() {
		if c.String() == string(b) {
			*k = c
			return nil
		}
	}
	return fmt.Errorf("classify: unknown kind %q", b)
}
