package proxy

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/mcpwatchdog/watchdog/internal/mcphttp"
)

// The wire of the bridge: a legacy host's messages in the 2026-07-28
// shape, and the legacy answers the proxy gives in the server's place.

// hostInfo is what the bridge keeps of a host's initialize for its
// requests' _meta: the client's info and capabilities, each an object, nil
// when the host sent none.
type hostInfo struct {
	info, caps json.RawMessage
	version    string // the protocolVersion it asked for
}

func hostInfoOf(init json.RawMessage) hostInfo {
	var p struct {
		ClientInfo      json.RawMessage `json:"clientInfo"`
		Capabilities    json.RawMessage `json:"capabilities"`
		ProtocolVersion string          `json:"protocolVersion"`
	}
	_ = json.Unmarshal(init, &p)
	return hostInfo{info: objectOrNil(p.ClientInfo), caps: objectOrNil(p.Capabilities), version: p.ProtocolVersion}
}

func objectOrNil(raw json.RawMessage) json.RawMessage {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return nil
	}
	return raw
}

// legacyVersions are the legacy protocol versions the bridge answers an
// initialize with: the one the host asked for when it is one of them,
// else the newest (as a legacy server negotiates).
var legacyVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

func legacyVersionFor(asked string) string {
	for _, v := range legacyVersions {
		if v == asked {
			return v
		}
	}
	return legacyVersions[0]
}

// nameSource is the params field the Mcp-Name header mirrors, per method
// (the 2026-07-28 Streamable HTTP binding, SEP-2243 and SEP-2663).
var nameSource = map[string]string{"tools/call": "name", "prompts/get": "name", "resources/read": "uri",
	"tasks/get": "taskId", "tasks/update": "taskId", "tasks/cancel": "taskId"}

// Meta keys of the bridge's own.
const metaLogLevel = "io.modelcontextprotocol/logLevel"

// errNotBridgeable: a message the bridge cannot put in the 2026-07-28
// shape (a batch, params that are not an object, not JSON-RPC at all).
var errNotBridgeable = errors.New("the watchdog proxy cannot send this message to a 2026-07-28 server")

// modernMessage is a host's request or notification in the 2026-07-28
// shape, with what its headers must say.
type modernMessage struct {
	body   []byte
	method string
	name   string // Mcp-Name's value, encoded; "" when the method has none
}

// toModern rewrites a legacy message: params._meta gets the protocol
// version, the host's capabilities and info (from its initialize) and the
// log level it set; everything else stays as the host sent it.
func toModern(body []byte, hi hostInfo, logLevel string) (modernMessage, error) {
	var msg map[string]json.RawMessage
	if err := json.Unmarshal(body, &msg); err != nil {
		return modernMessage{}, errNotBridgeable
	}
	var method string
	if json.Unmarshal(msg["method"], &method) != nil || method == "" {
		return modernMessage{}, errNotBridgeable
	}
	params := map[string]json.RawMessage{}
	if raw := bytes.TrimSpace(msg["params"]); len(raw) > 0 && !bytes.Equal(raw, []byte("null")) {
		if json.Unmarshal(raw, &params) != nil {
			return modernMessage{}, errNotBridgeable
		}
	}
	meta := map[string]json.RawMessage{}
	if raw, ok := params["_meta"]; ok && json.Unmarshal(raw, &meta) != nil {
		return modernMessage{}, errNotBridgeable
	}
	meta[mcphttp.MetaProtocolVersion] = quoted(mcphttp.ModernVersion)
	meta[mcphttp.MetaClientCapabilities] = orEmptyObject(hi.caps)
	if hi.info != nil {
		meta[mcphttp.MetaClientInfo] = hi.info
	}
	if logLevel != "" {
		meta[metaLogLevel] = quoted(logLevel)
	}
	var err error
	if params["_meta"], err = marshalPlain(meta); err != nil {
		return modernMessage{}, errNotBridgeable
	}
	if msg["params"], err = marshalPlain(params); err != nil {
		return modernMessage{}, errNotBridgeable
	}
	out, err := marshalPlain(msg)
	if err != nil {
		return modernMessage{}, errNotBridgeable
	}
	m := modernMessage{body: out, method: method}
	if field, ok := nameSource[method]; ok {
		var v string
		if json.Unmarshal(params[field], &v) == nil {
			m.name = encodeHeaderValue(v)
		}
	}
	return m, nil
}

// modernHeader is the host's headers for its request in the 2026-07-28
// shape: its own version header replaced, the method and name headers the
// spec requires, never a session id (copyHeaders drops it).
func modernHeader(host http.Header, m modernMessage) http.Header {
	h := host.Clone()
	for _, k := range []string{mcphttp.HeaderProtocolVersion, mcphttp.HeaderMethod, headerName, mcphttp.HeaderSessionID} {
		h.Del(k)
	}
	h.Set(mcphttp.HeaderProtocolVersion, mcphttp.ModernVersion)
	h.Set(mcphttp.HeaderMethod, m.method)
	if m.name != "" {
		h.Set(headerName, m.name)
	}
	h.Set("Content-Type", "application/json")
	if a := h.Get("Accept"); !strings.Contains(a, "application/json") || !strings.Contains(a, "text/event-stream") {
		h.Set("Accept", "application/json, text/event-stream")
	}
	return h
}

// headerName is the 2026-07-28 header naming a request's tool, prompt,
// resource or task.
const headerName = "Mcp-Name"

// encodeHeaderValue is SEP-2243's header encoding, as the Go SDK's
// (streamable_headers.go): a value with a leading or trailing blank, a
// character outside visible ASCII, or the shape of the sentinel itself
// goes as =?base64?<standard base64 of its UTF-8>?=.
func encodeHeaderValue(s string) string {
	const prefix, suffix = "=?base64?", "?="
	plain := s == "" || s[0] != ' ' && s[0] != '\t' && s[len(s)-1] != ' ' && s[len(s)-1] != '\t'
	for _, c := range s {
		plain = plain && c >= 0x20 && c <= 0x7e
	}
	if plain && !(strings.HasPrefix(s, prefix) && strings.HasSuffix(s, suffix)) {
		return s
	}
	return prefix + base64.StdEncoding.EncodeToString([]byte(s)) + suffix
}

// initializeAnswer is the proxy's answer to a host's initialize in the
// server's place, from server/discover: the server's capabilities, its
// info from _meta (its name from the config when it gave none) and
// instructions, at the legacy version the host asked for.
func initializeAnswer(id json.RawMessage, hi hostInfo, d mcphttp.Discovery, server string) ([]byte, error) {
	info := json.RawMessage(nil)
	var si struct{ Name, Version *string }
	if json.Unmarshal(d.ServerInfo, &si) == nil && si.Name != nil && si.Version != nil {
		info = d.ServerInfo
	}
	if info == nil {
		info, _ = json.Marshal(map[string]string{"name": server, "version": ""})
	}
	result := map[string]any{"protocolVersion": legacyVersionFor(hi.version),
		"capabilities": orEmptyObject(objectOrNil(d.Capabilities)), "serverInfo": info}
	if d.Instructions != "" {
		result["instructions"] = d.Instructions
	}
	return rpcResult(id, result)
}

// rpcResult is a JSON-RPC response carrying result.
func rpcResult(id json.RawMessage, result any) ([]byte, error) {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	return marshalPlain(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
}

// idOf is a message's raw id (nil for a notification).
func idOf(body []byte) json.RawMessage {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	_ = json.Unmarshal(body, &m)
	return m.ID
}

// marshalPlain is json.Marshal without HTML escaping: what the host wrote
// goes on as it was written.
func marshalPlain(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

func quoted(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

func orEmptyObject(raw json.RawMessage) json.RawMessage {
	if raw == nil {
		return json.RawMessage("{}")
	}
	return raw
}

// isModernRequest reports whether a host speaks 2026-07-28 itself: its
// version header names it, or its params carry the per-request envelope's
// protocol version (the servers' own test, body first). Such a request
// goes on untouched.
func isModernRequest(h http.Header, body []byte) bool {
	if mcphttp.IsModernVersion(h.Get(mcphttp.HeaderProtocolVersion)) {
		return true
	}
	var m struct {
		Params struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &m) != nil {
		return false
	}
	_, ok := m.Params.Meta[mcphttp.MetaProtocolVersion]
	return ok
}
