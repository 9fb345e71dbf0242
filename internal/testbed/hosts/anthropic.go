package hosts

import (
	"encoding/json"
	"errors"
	"net/http"
)

// messagesRequest is what the stand-in reads of an Anthropic Messages API
// request (Claude Code's): tool results come back as tool_result blocks
// of a user message, whose content is a string or a list of blocks.
type messagesRequest struct {
	Stream   bool `json:"stream"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools namedTools `json:"tools"`
}

// messageBlock is one content block of a message, as far as the stand-in
// reads it.
type messageBlock struct {
	Type      string          `json:"type"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
}

// messages serves POST {base}/v1/messages, streamed as the Messages API's
// server-sent events (Claude Code always asks for a stream).
func (m *ModelAPI) messages(w http.ResponseWriter, r *http.Request) {
	var req messagesRequest
	if !m.decode(w, r, "Messages API", &req) {
		return
	}
	if !req.Stream {
		m.fail(errors.New("model api: a Messages API request that asks for no stream"))
		http.Error(w, "the stand-in streams only", http.StatusBadRequest)
		return
	}
	var results []ToolResult
	for _, msg := range req.Messages {
		var blocks []messageBlock
		if msg.Role != "user" || json.Unmarshal(msg.Content, &blocks) != nil {
			continue // the model's own turns, or a plain string: no tool results
		}
		for _, b := range blocks {
			if b.Type == "tool_result" {
				results = append(results, ToolResult{CallID: b.ToolUseID, Content: outputText(b.Content)})
			}
		}
	}
	m.converse(w, r, req.Tools.names(), results, m.answerMessages)
}

// answerMessages streams turn as one assistant message of one block: a
// tool_use (its input in one input_json_delta) that stops for the tool,
// or text that ends the turn.
func (m *ModelAPI) answerMessages(w http.ResponseWriter, turn Turn) {
	id := m.callID()
	block := map[string]any{"type": "text", "text": ""}
	delta := map[string]any{"type": "text_delta", "text": turn.Text}
	stop := "end_turn"
	if turn.Tool != "" {
		block = map[string]any{"type": "tool_use", "id": "toolu_" + id, "name": turn.Tool, "input": map[string]any{}}
		delta = map[string]any{"type": "input_json_delta", "partial_json": turn.Args}
		stop = "tool_use"
	}
	usage := map[string]any{"input_tokens": 1, "output_tokens": 1}
	streamEvents(w, []map[string]any{
		{"type": "message_start", "message": map[string]any{"id": "msg_" + id, "type": "message", "role": "assistant",
			"model": "standin", "content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": usage}},
		{"type": "content_block_start", "index": 0, "content_block": block},
		{"type": "content_block_delta", "index": 0, "delta": delta},
		{"type": "content_block_stop", "index": 0},
		{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": usage},
		{"type": "message_stop"},
	})
}
