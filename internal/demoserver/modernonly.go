package demoserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// The Go SDK v1.8.0 has no modern-only mode: its stateless handler serves
// a legacy initialize, and even a legacy tools/call, to any client (only
// an explicit 2025-11-25 header gets a plain-text 400). refuseLegacy puts
// in front of it what the TypeScript SDK v2 does with legacy: 'reject'
// (measured: REFERENCES, testdata/tsmodern), so `watchdog demo` can show a
// modern-only server without node: the request classified as the SDK
// classifies it (a per-request envelope in params._meta, or a 2026-07-28
// version header, is modern; anything else legacy), a legacy request
// refused with 400 -32022 naming the supported versions, a legacy
// notification acknowledged (202) and dropped, GET and DELETE 405.

// modernOnlyVersion is what a modern-only server supports.
const modernOnlyVersion = "2026-07-28"

// maxModernOnlyBody bounds what refuseLegacy reads of a request to
// classify it, as the TypeScript SDK's handler does (4 MiB).
const maxModernOnlyBody = 4 << 20

func refuseLegacy(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", "POST")
			writeRPC(w, http.StatusMethodNotAllowed, nil, -32000, "Method not allowed.", nil)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, maxModernOnlyBody+1))
		if err != nil || len(body) > maxModernOnlyBody {
			http.Error(w, "request too large or unreadable", http.StatusRequestEntityTooLarge)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		msg, modern := classifyEra(r.Header, body)
		switch {
		case modern:
			next.ServeHTTP(w, r)
		case msg.Method != "" && len(msg.ID) == 0: // a notification
			w.WriteHeader(http.StatusAccepted)
		default:
			refuseVersion(w, r.Header, msg)
		}
	})
}

// eraMessage is what classifying a request needs of its body.
type eraMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		ProtocolVersion string                     `json:"protocolVersion"`
		Meta            map[string]json.RawMessage `json:"_meta"`
	} `json:"params"`
}

// classifyEra reads body as the TypeScript SDK's classifier does, body
// first: the envelope's protocol version in params._meta claims the modern
// era; a 2026-07-28 version header does too (the modern path then refuses
// a missing envelope itself). Batches and what is not JSON are legacy.
func classifyEra(h http.Header, body []byte) (eraMessage, bool) {
	var m eraMessage
	if json.Unmarshal(body, &m) != nil {
		return eraMessage{}, false
	}
	if _, claim := m.Params.Meta["io.modelcontextprotocol/protocolVersion"]; claim {
		return m, true
	}
	return m, h.Get("Mcp-Protocol-Version") >= modernOnlyVersion
}

// refuseVersion answers a legacy request as a modern-only server does.
func refuseVersion(w http.ResponseWriter, h http.Header, m eraMessage) {
	requested := h.Get("Mcp-Protocol-Version")
	if m.Method == "initialize" && m.Params.ProtocolVersion != "" {
		requested = m.Params.ProtocolVersion // the body's word first, as the SDK reads it
	}
	data := map[string]any{"supported": []string{modernOnlyVersion}}
	msg := "Unsupported protocol version: the request did not name a protocol version"
	if requested != "" {
		data["requested"] = requested
		msg = fmt.Sprintf("Unsupported protocol version: %s", requested)
	}
	writeRPC(w, http.StatusBadRequest, m.ID, -32022, msg, data)
}

func writeRPC(w http.ResponseWriter, status int, id json.RawMessage, code int, msg string, data any) {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	e := map[string]any{"code": code, "message": msg}
	if data != nil {
		e["data"] = data
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": id, "error": e})
}
