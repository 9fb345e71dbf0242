package hosts

import (
	"encoding/json"
	"net/http"
	"strings"
)

// responsesRequest is what the stand-in reads of an OpenAI Responses API
// request (Codex CLI's wire API): the tool results come back as input
// items of type function_call_output.
type responsesRequest struct {
	Input []struct {
		Type   string          `json:"type"`
		CallID string          `json:"call_id"`
		Output json.RawMessage `json:"output"`
	} `json:"input"`
	Tools namedTools `json:"tools"`
}

// responses serves POST {base}/responses, streamed as the Responses API's
// server-sent events.
func (m *ModelAPI) responses(w http.ResponseWriter, r *http.Request) {
	var req responsesRequest
	if !m.decode(w, r, "Responses API", &req) {
		return
	}
	var results []ToolResult
	for _, in := range req.Input {
		if in.Type == "function_call_output" {
			results = append(results, ToolResult{CallID: in.CallID, Content: outputText(in.Output)})
		}
	}
	m.converse(w, r, req.Tools.names(), results, m.answerResponses)
}

// A Turn's Tool "namespace/name" is a tool inside a namespace tool (Codex
// offers each MCP server's tools as one namespace, mcp__<server>): the
// call names both.

// outputText is a function_call_output's output as text: a JSON string,
// the text parts of a content list joined, or the raw JSON.
func outputText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) == nil && len(parts) > 0 {
		out := ""
		for _, p := range parts {
			out += p.Text
		}
		return out
	}
	return string(raw)
}

func (m *ModelAPI) answerResponses(w http.ResponseWriter, turn Turn) {
	id := m.callID()
	var item map[string]any
	if turn.Tool != "" {
		item = map[string]any{"type": "function_call", "id": "fc_" + id, "call_id": id, "name": turn.Tool,
			"arguments": turn.Args, "status": "completed"}
		if ns, name, ok := strings.Cut(turn.Tool, "/"); ok {
			item["namespace"], item["name"] = ns, name
		}
	} else {
		item = map[string]any{"type": "message", "id": "msg_" + id, "role": "assistant", "status": "completed",
			"content": []map[string]any{{"type": "output_text", "text": turn.Text, "annotations": []any{}}}}
	}
	resp := map[string]any{"id": "resp_" + id, "object": "response", "status": "completed", "model": "standin"}
	events := []map[string]any{
		{"type": "response.created", "response": resp},
		{"type": "response.output_item.added", "output_index": 0, "item": item},
		{"type": "response.output_item.done", "output_index": 0, "item": item},
		{"type": "response.completed", "response": merge(resp, map[string]any{"output": []any{item},
			"usage": map[string]any{"input_tokens": 1, "output_tokens": 1, "total_tokens": 2,
				"input_tokens_details":  map[string]any{"cached_tokens": 0},
				"output_tokens_details": map[string]any{"reasoning_tokens": 0}}})},
	}
	streamEvents(w, events)
}

func merge(a, b map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}
