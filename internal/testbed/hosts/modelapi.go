package hosts

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Turn is the stand-in model's next answer: a call of Tool with Args (a
// JSON object), or, when Tool is "", the final text that ends the task.
type Turn struct {
	Tool string
	Args string
	Text string
}

// ToolResult is one tool result as the host handed it back to the model:
// what the host's user would see of that call.
type ToolResult struct {
	CallID  string
	Content string
}

// ModelAPI stands in for a host's model API on loopback: OpenAI-style chat
// completions, streamed, as DSH's deepseek-official provider speaks them
// (POST {base}/chat/completions, SSE chunks, data: [DONE]), the Responses
// API as Codex CLI speaks it (POST {base}/responses), the Gemini API as
// Gemini CLI does, and the Anthropic Messages API as Claude Code does (POST
// {base}/v1/messages). Each request waits for the test's next Turn; each
// tool result the host sends back is reported once, in order. No model,
// no network.
type ModelAPI struct {
	srv     *http.Server
	url     string
	turns   chan Turn
	results chan ToolResult
	done    chan struct{}
	wg      sync.WaitGroup

	mu     sync.Mutex
	side   func(tools []string) bool // a host's own side questions; nil: none
	seen   map[string]bool           // tool_call_ids already reported
	tools  []string                  // the tool names of the latest request
	calls  int                       // call ids handed out
	asking int                       // conversation requests waiting for a turn
	err    error                     // the first request the stand-in could not read

	// deferred are the tools the latest request names as deferred
	// (Claude Code's ToolSearch: named in text, not in its tools).
	deferred []string
	asked    time.Time // when the latest request of the conversation came
}

// StartModelAPI listens on a loopback port until Close.
func StartModelAPI() (*ModelAPI, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("model api: listen: %w", err)
	}
	m := &ModelAPI{
		url:     "http://" + ln.Addr().String(),
		turns:   make(chan Turn),
		results: make(chan ToolResult, 64),
		done:    make(chan struct{}),
		seen:    map[string]bool{},
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /chat/completions", m.chat)
	mux.HandleFunc("POST /responses", m.responses)
	mux.HandleFunc("POST /v1beta/models/{call}", m.gemini)
	mux.HandleFunc("POST /v1/messages", m.messages)
	m.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		_ = m.srv.Serve(ln)
	}()
	return m, nil
}

// SetSide tells the stand-in which chat requests are the host's own side
// questions (a title, a check of its own): answered at once with "{}",
// never a turn of the conversation. Their tool results are still reported.
func (m *ModelAPI) SetSide(side func(tools []string) bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.side = side
}

// isSide reports whether a request offering tools is a side question.
func (m *ModelAPI) isSide(tools []string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.side != nil && m.side(tools)
}

// URL is the base URL to give the host (no trailing slash).
func (m *ModelAPI) URL() string { return m.url }

// ErrHostExited: the host exited while the stand-in waited for it.
var ErrHostExited = errors.New("model api: the host exited")

// Say hands the host's next model request its answer; it waits until the
// host asks, within runs out, or exited is closed (the host is gone).
func (m *ModelAPI) Say(t Turn, within time.Duration, exited <-chan struct{}) error {
	timer := time.NewTimer(within)
	defer timer.Stop()
	select {
	case m.turns <- t:
		return nil
	case <-exited:
		return fmt.Errorf("%w before it asked the model anything more", ErrHostExited)
	case <-timer.C:
		return fmt.Errorf("model api: the host asked the model nothing within %v (%s)", within, m.Err())
	}
}

// Result waits for the next tool result the host sends back (as Say waits).
func (m *ModelAPI) Result(within time.Duration, exited <-chan struct{}) (ToolResult, error) {
	timer := time.NewTimer(within)
	defer timer.Stop()
	select {
	case r := <-m.results:
		return r, nil
	case <-exited:
		return ToolResult{}, fmt.Errorf("%w before it handed back a tool result", ErrHostExited)
	case <-timer.C:
		return ToolResult{}, fmt.Errorf("model api: no tool result within %v (%s)", within, m.Err())
	}
}

// Asking waits until a request of the conversation waits for its turn
// (as Say waits) and returns the tools it offers. It looks every 20 ms:
// the host asks when it likes.
func (m *ModelAPI) Asking(within time.Duration, exited <-chan struct{}) ([]string, error) {
	deadline := time.Now().Add(within)
	for {
		m.mu.Lock()
		asking, tools := m.asking > 0, append([]string(nil), m.tools...)
		m.mu.Unlock()
		if asking {
			return tools, nil
		}
		select {
		case <-exited:
			return nil, fmt.Errorf("%w before it asked the model anything more", ErrHostExited)
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("model api: the host asked the model nothing within %v (%s)", within, m.Err())
		}
	}
}

// Tools are the tool names the host offered in its latest request.
func (m *ModelAPI) Tools() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.tools...)
}

// Offered says whether the host's latest request offered tool to the
// model: among its tools, or named as a deferred one.
func (m *ModelAPI) Offered(tool string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Contains(m.tools, tool) || slices.Contains(m.deferred, tool)
}

// Asked is when the latest request of the conversation came.
func (m *ModelAPI) Asked() time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.asked
}

// noteDeferred keeps the tools a request of the conversation names as
// deferred.
func (m *ModelAPI) noteDeferred(tools []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.deferred = tools
}

// Err is the first request the stand-in could not read, if any.
func (m *ModelAPI) Err() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.err == nil {
		return errors.New("no bad request")
	}
	return m.err
}

// Close stops serving; a request still waiting for a turn is cut off.
func (m *ModelAPI) Close() error {
	close(m.done)
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	err := m.srv.Shutdown(ctx)
	if err != nil {
		err = m.srv.Close()
	}
	m.wg.Wait()
	return err
}

// chatRequest is what the stand-in reads of a chat completions request.
type chatRequest struct {
	Messages []struct {
		Role       string          `json:"role"`
		ToolCallID string          `json:"tool_call_id"`
		Content    json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
}

func (m *ModelAPI) chat(w http.ResponseWriter, r *http.Request) {
	var req chatRequest
	if !m.decode(w, r, "chat completions", &req) {
		return
	}
	var tools []string
	for _, t := range req.Tools {
		tools = append(tools, t.Function.Name)
	}
	var results []ToolResult
	for _, msg := range req.Messages {
		if msg.Role == "tool" {
			results = append(results, ToolResult{CallID: msg.ToolCallID, Content: contentText(msg.Content)})
		}
	}
	if m.isSide(tools) {
		m.noteResults(results)
		m.answer(w, Turn{Text: "{}"})
		return
	}
	m.converse(w, r, tools, results, m.answer)
}

// namedTools are a request's tools where each names itself at its top
// level (the Responses and Messages APIs).
type namedTools []struct {
	Name string `json:"name"`
}

func (ts namedTools) names() []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Name)
	}
	return out
}

// converse is one model request of the conversation: it notes the tools
// and tool results the request carries, waits for the test's next turn
// and answers with it.
func (m *ModelAPI) converse(w http.ResponseWriter, r *http.Request, tools []string, results []ToolResult, answer func(http.ResponseWriter, Turn)) {
	m.noteTurn(tools, results)
	if turn, ok := m.nextTurn(w, r); ok {
		answer(w, turn)
	}
}

// nextTurn waits for the test's next turn; false when the request or the
// stand-in ended first.
func (m *ModelAPI) nextTurn(w http.ResponseWriter, r *http.Request) (Turn, bool) {
	m.mu.Lock()
	m.asking++
	m.mu.Unlock()
	defer func() {
		m.mu.Lock()
		m.asking--
		m.mu.Unlock()
	}()
	select {
	case turn := <-m.turns:
		return turn, true
	case <-r.Context().Done():
		return Turn{}, false
	case <-m.done:
		http.Error(w, "model api closed", http.StatusServiceUnavailable)
		return Turn{}, false
	}
}

// noteTurn keeps a request's tool names and reports its tool results not
// reported before (a request carries the whole conversation).
func (m *ModelAPI) noteTurn(tools []string, results []ToolResult) {
	m.mu.Lock()
	m.tools, m.asked = tools, time.Now()
	m.mu.Unlock()
	m.noteResults(results)
}

// noteResults reports the tool results not reported before.
func (m *ModelAPI) noteResults(results []ToolResult) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, res := range results {
		if m.seen[res.CallID] {
			continue
		}
		m.seen[res.CallID] = true
		select {
		case m.results <- res:
		default: // nobody reads them: a test that made over 64 calls without looking
			if m.err == nil {
				m.err = errors.New("model api: more tool results than anyone read")
			}
		}
	}
}

// contentText is a message's content as text: a JSON string, the text
// parts of a list of content parts joined by newlines (Qwen Code's), or
// the raw JSON of anything else.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type, Text string
	}
	if json.Unmarshal(raw, &parts) == nil && len(parts) > 0 {
		var texts []string
		for _, p := range parts {
			if p.Type == "text" {
				texts = append(texts, p.Text)
			}
		}
		if len(texts) == len(parts) {
			return strings.Join(texts, "\n")
		}
	}
	return string(raw)
}

// decode reads r's JSON body into v; a body that is not api's JSON is
// answered 400 and kept as the stand-in's error.
func (m *ModelAPI) decode(w http.ResponseWriter, r *http.Request, api string, v any) bool {
	if err := json.NewDecoder(r.Body).Decode(v); err != nil {
		m.fail(fmt.Errorf("model api: a request that is not %s JSON: %w", api, err))
		http.Error(w, err.Error(), http.StatusBadRequest)
		return false
	}
	return true
}

// streamEvents answers with events as server-sent events, each named by
// its "type" field (as the Responses and Messages APIs name theirs).
func streamEvents(w http.ResponseWriter, events []map[string]any) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	for _, e := range events {
		b, _ := json.Marshal(e)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", e["type"], b)
	}
}

func (m *ModelAPI) fail(err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.err == nil {
		m.err = err
	}
}

// answer streams turn as chat completion chunks.
func (m *ModelAPI) answer(w http.ResponseWriter, turn Turn) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	var delta map[string]any
	finish := "stop"
	if turn.Tool != "" {
		delta = map[string]any{"role": "assistant", "tool_calls": []map[string]any{{
			"index": 0, "id": m.callID(), "type": "function",
			"function": map[string]any{"name": turn.Tool, "arguments": turn.Args},
		}}}
		finish = "tool_calls"
	} else {
		delta = map[string]any{"role": "assistant", "content": turn.Text}
	}
	chunks := []map[string]any{
		{"id": "standin", "object": "chat.completion.chunk", "model": "standin",
			"choices": []map[string]any{{"index": 0, "delta": delta, "finish_reason": nil}}},
		{"id": "standin", "object": "chat.completion.chunk", "model": "standin",
			"choices": []map[string]any{{"index": 0, "delta": map[string]any{}, "finish_reason": finish}},
			"usage":   map[string]any{"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}},
	}
	for _, c := range chunks {
		b, _ := json.Marshal(c)
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
}

func (m *ModelAPI) callID() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls++
	return "call_" + strconv.Itoa(m.calls)
}
