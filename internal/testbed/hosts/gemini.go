package hosts

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// geminiRequest is what the stand-in reads of a Gemini API request
// (Gemini CLI's): tool results come back as functionResponse parts.
type geminiRequest struct {
	Contents []struct {
		Parts []struct {
			FunctionResponse *struct {
				ID       string          `json:"id"`
				Name     string          `json:"name"`
				Response json.RawMessage `json:"response"`
			} `json:"functionResponse"`
		} `json:"parts"`
	} `json:"contents"`
	Tools []struct {
		FunctionDeclarations []struct {
			Name string `json:"name"`
		} `json:"functionDeclarations"`
	} `json:"tools"`
}

// gemini serves POST /v1beta/models/{model}:{method}: streamGenerateContent
// (the conversation) waits for the test's turn; any other method is
// answered at once with an empty JSON object as text (Gemini CLI's own
// side questions), and never counts as the conversation.
func (m *ModelAPI) gemini(w http.ResponseWriter, r *http.Request) {
	_, method, _ := strings.Cut(r.PathValue("call"), ":")
	var req geminiRequest
	if !m.decode(w, r, "Gemini API", &req) {
		return
	}
	if method != "streamGenerateContent" {
		m.answerGemini(w, Turn{Text: "{}"}, false)
		return
	}
	var tools []string
	for _, t := range req.Tools {
		for _, d := range t.FunctionDeclarations {
			tools = append(tools, d.Name)
		}
	}
	var results []ToolResult
	for _, c := range req.Contents {
		for _, p := range c.Parts {
			if f := p.FunctionResponse; f != nil {
				results = append(results, ToolResult{CallID: f.ID, Content: string(f.Response)})
			}
		}
	}
	m.converse(w, r, tools, results, func(w http.ResponseWriter, turn Turn) { m.answerGemini(w, turn, true) })
}

// answerGemini answers with turn as one GenerateContentResponse: streamed
// as one server-sent event, or as a plain JSON body.
func (m *ModelAPI) answerGemini(w http.ResponseWriter, turn Turn, stream bool) {
	part := map[string]any{"text": turn.Text}
	if turn.Tool != "" {
		var args map[string]any
		_ = json.Unmarshal([]byte(turn.Args), &args)
		part = map[string]any{"functionCall": map[string]any{"id": m.callID(), "name": turn.Tool, "args": args}}
	}
	resp := map[string]any{
		"candidates": []map[string]any{{"index": 0, "finishReason": "STOP",
			"content": map[string]any{"role": "model", "parts": []any{part}}}},
		"usageMetadata": map[string]any{"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2},
		"modelVersion":  "standin",
	}
	b, _ := json.Marshal(resp)
	if !stream {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(b)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	fmt.Fprintf(w, "data: %s\n\n", b)
}
