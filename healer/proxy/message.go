package proxy

import (
	"bufio"
	"bytes"
	"encoding/json"
	"mime"
	"strings"
)

// methodOf is a JSON-RPC message's method ("" for a response, a batch or
// what is not JSON-RPC).
func methodOf(body []byte) string {
	var m struct {
		Method string `json:"method"`
	}
	if json.Unmarshal(body, &m) != nil {
		return ""
	}
	return m.Method
}

// isResponse reports whether body is one JSON-RPC response (a result or
// an error, no method): the host answering a request of the server's.
// Requests, notifications and batches are not.
func isResponse(body []byte) bool {
	var m struct {
		Method string          `json:"method"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	return json.Unmarshal(body, &m) == nil && m.Method == "" && (m.Result != nil || m.Error != nil)
}

// paramsOf is a request's params.
func paramsOf(body []byte) json.RawMessage {
	var m struct {
		Params json.RawMessage `json:"params"`
	}
	_ = json.Unmarshal(body, &m)
	return m.Params
}

// initResult reads the protocol version and the lists a server offers from
// its initialize answer, JSON or SSE.
func initResult(contentType string, data []byte) (string, lists) {
	for _, msg := range messages(contentType, data) {
		var m struct {
			Result json.RawMessage `json:"result"`
		}
		if json.Unmarshal(msg, &m) == nil {
			if v, l := parseInit(m.Result); v != "" {
				return v, l
			}
		}
	}
	return "", lists{}
}

// parseInit reads an initialize result.
func parseInit(result json.RawMessage) (string, lists) {
	var r struct {
		ProtocolVersion string `json:"protocolVersion"`
		Capabilities    struct {
			Tools     json.RawMessage `json:"tools"`
			Resources json.RawMessage `json:"resources"`
			Prompts   json.RawMessage `json:"prompts"`
		} `json:"capabilities"`
	}
	if json.Unmarshal(result, &r) != nil {
		return "", lists{}
	}
	c := r.Capabilities
	return r.ProtocolVersion, lists{Tools: c.Tools != nil, Resources: c.Resources != nil, Prompts: c.Prompts != nil}
}

// messages are the JSON payloads of an answer: the body, or each SSE
// event's data.
func messages(contentType string, data []byte) [][]byte {
	if mt, _, _ := mime.ParseMediaType(contentType); mt != "text/event-stream" {
		return [][]byte{data}
	}
	var out [][]byte
	var ev bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, maxInitAnswer)
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		if line == "" {
			if ev.Len() > 0 {
				out = append(out, bytes.Clone(ev.Bytes()))
				ev.Reset()
			}
			continue
		}
		if v, ok := strings.CutPrefix(line, "data:"); ok {
			if ev.Len() > 0 {
				ev.WriteByte('\n')
			}
			ev.WriteString(strings.TrimPrefix(v, " "))
		}
	}
	if ev.Len() > 0 {
		out = append(out, ev.Bytes())
	}
	return out
}
