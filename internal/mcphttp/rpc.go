package mcphttp

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// RPCMessage is one JSON-RPC 2.0 message as it came off the wire.
type RPCMessage struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *RPCError       `json:"error,omitempty"`
}

// RPCError is the error member of a JSON-RPC response.
type RPCError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *RPCError) Error() string { return fmt.Sprintf("JSON-RPC error %d: %s", e.Code, e.Message) }

// IsResponse reports whether m answers a request (it has a result or an
// error and no method).
func (m *RPCMessage) IsResponse() bool {
	return m.Method == "" && (m.Result != nil || m.Error != nil)
}

// hasID reports whether m's id is the string id.
func (m *RPCMessage) hasID(id string) bool {
	var s string
	return json.Unmarshal(m.ID, &s) == nil && s == id
}

// nullID reports an absent or null id: servers use it for errors they could
// not tie to a request (a rejected session, a parse error).
func (m *RPCMessage) nullID() bool {
	return len(m.ID) == 0 || bytes.Equal(bytes.TrimSpace(m.ID), []byte("null"))
}

// decodeMessages decodes a JSON body holding one message or a batch.
func decodeMessages(data []byte) ([]RPCMessage, bool) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil, false
	}
	if data[0] == '[' {
		var batch []RPCMessage
		if json.Unmarshal(data, &batch) != nil {
			return nil, false
		}
		return batch, true
	}
	var m RPCMessage
	if json.Unmarshal(data, &m) != nil || m.JSONRPC == "" {
		return nil, false
	}
	return []RPCMessage{m}, true
}

// pick returns the response carrying id. Failing that, a lone error response
// with a null id is taken as the answer: we sent exactly one request, and
// servers (the TypeScript SDK among them) reject an unknown session with
// "id": null.
func pick(msgs []RPCMessage, id string) *RPCMessage {
	for i := range msgs {
		if msgs[i].IsResponse() && msgs[i].hasID(id) {
			return &msgs[i]
		}
	}
	if len(msgs) == 1 && msgs[0].Error != nil && msgs[0].nullID() {
		return &msgs[0]
	}
	return nil
}
