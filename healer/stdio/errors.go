package stdio

import (
	"encoding/json"
	"fmt"
)

// ErrorCode is the JSON-RPC code of the errors the supervisor answers a
// host's request with (the range the spec leaves to implementations).
const ErrorCode = -32000

// callError is why a host's request is answered by the supervisor.
type callError struct {
	// reason is a word scripts can branch on: exited, crash_loop,
	// restarting, closing.
	reason string
	words  string
	stderr string
}

func (e *callError) Error() string { return e.words }

// errClosing: the host went; nothing is answered any more.
var errClosing = &callError{reason: "closing", words: "the host is ending the server"}

// rpcError is a JSON-RPC error answer.
type rpcError struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Data    struct {
			Server string `json:"server"`
			Reason string `json:"reason"`
			Stderr string `json:"stderr,omitempty"`
		} `json:"data"`
	} `json:"error"`
}

// fail answers the host's request id with err.
func (s *Supervisor) fail(id []byte, err error) {
	ce, ok := err.(*callError)
	if !ok {
		ce = &callError{reason: "failed", words: err.Error()}
	}
	if ce == errClosing {
		return
	}
	var m rpcError
	m.JSONRPC, m.ID = "2.0", json.RawMessage(id)
	m.Error.Code, m.Error.Message = ErrorCode, "watchdog: "+ce.words
	m.Error.Data.Server, m.Error.Data.Reason, m.Error.Data.Stderr = s.name(), ce.reason, ce.stderr
	b, merr := json.Marshal(m)
	if merr != nil {
		return
	}
	if s.hostOut.line(b) != nil {
		s.hostGone()
	}
}

// note writes one line of the supervisor's own to stderr, where a host
// keeps its server's log.
func (o *out) note(format string, args ...any) {
	o.mu.Lock()
	defer o.mu.Unlock()
	fmt.Fprintf(o.w, "watchdog stdio: "+format+"\n", args...)
}
