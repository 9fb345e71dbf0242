package hosts

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
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
	var raw bytes.Buffer
	r.Body = io.NopCloser(io.TeeReader(r.Body, &raw))
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
	m.noteDeferred(deferredTools(raw.Bytes()))
	m.converse(w, r, req.Tools.names(), results, m.answerMessages)
}

// deferredMarker starts the system message in which Claude Code (2.1.332)
// names the tools it defers, MCP tools among them, one a line, instead of
// listing them in the request's tools: the model loads them with
// ToolSearch, or calls them by name.
const deferredMarker = "The following deferred tools are now available via ToolSearch"

// deferredTools are the tools a Messages API request (raw) names as
// deferred, in its messages' or its system prompt's text.
func deferredTools(raw []byte) []string {
	if !bytes.Contains(raw, []byte(deferredMarker)) {
		return nil
	}
	var req struct {
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		System json.RawMessage `json:"system"`
	}
	if json.Unmarshal(raw, &req) != nil {
		return nil
	}
	var out []string
	read := func(content json.RawMessage) {
		text := contentText(content)
		var blocks []struct{ Text string }
		if json.Unmarshal(content, &blocks) == nil {
			var texts []string
			for _, b := range blocks {
				texts = append(texts, b.Text)
			}
			text = strings.Join(texts, "\n")
		}
		_, list, ok := strings.Cut(text, deferredMarker)
		if !ok {
			return
		}
		_, list, _ = strings.Cut(list, ":\n")
		for _, line := range strings.Split(list, "\n") {
			if name := strings.TrimSpace(line); name != "" && !strings.ContainsAny(name, " <") && !slices.Contains(out, name) {
				out = append(out, name)
			}
		}
	}
	for _, msg := range req.Messages {
		read(msg.Content)
	}
	read(req.System)
	return out
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
