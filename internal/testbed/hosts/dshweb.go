package hosts

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// DSHWeb is a client of `dsh web`'s own API, the one its browser client
// speaks (@deepseek-ai/dsh-host-apiproxy's fetch carrier, served under
// /api by @deepseek-ai/dsh-client-connection): each call is a POST
// /api/<method> with a JSON envelope {type: "client-request", rpcId,
// method, payload}, answered 200 with {type: "server-response", rpcId,
// result: {ok, value | error}}; an HTTP status other than 200 is the
// carrier's failure, a business error rides result.error. There is no
// authentication: the route only fences by Host header (loopback passes).
// Just enough to start a turn: session.create, then session.prompt; the
// turn then runs in the host without anyone on its event streams.
type DSHWeb struct {
	url    string
	client *http.Client
}

// NewDSHWeb is a client of the `dsh web` serving at url (http://host:port).
func NewDSHWeb(url string) *DSHWeb {
	return &DSHWeb{url: strings.TrimSuffix(url, "/"), client: &http.Client{}}
}

// dshWebReady is the line `dsh web` prints once its whole composition has
// settled (dsh-web-app's announceReady, after the loader's await): by then
// every plugin is active, and the MCP client's activation awaits its
// server's tool list, so a session created afterwards is offered the
// server's tools.
const dshWebReady = "dsh web: "

// DSHWebURL is the URL `dsh web` announced in output (what it printed) as
// it became ready; false until it has.
func DSHWebURL(output string) (string, bool) {
	for _, line := range strings.Split(output, "\n") {
		if rest, ok := strings.CutPrefix(line, dshWebReady); ok && strings.HasPrefix(rest, "http") {
			url, _, _ := strings.Cut(rest, " ")
			return url, true
		}
	}
	return "", false
}

// rpcError is a business error of the API (RpcError).
type rpcError struct {
	Code    string          `json:"code"`
	Message string          `json:"message"`
	Details json.RawMessage `json:"details"`
}

// call posts one client-request of method with payload and decodes the
// value of its answer into value (nil: not read).
func (c *DSHWeb) call(ctx context.Context, method string, payload, value any) error {
	var id [16]byte
	if _, err := rand.Read(id[:]); err != nil {
		return fmt.Errorf("dsh web: %w", err)
	}
	rpcID := hex.EncodeToString(id[:])
	body, err := json.Marshal(map[string]any{"type": "client-request", "rpcId": rpcID, "method": method, "payload": payload})
	if err != nil {
		return fmt.Errorf("dsh web: %s: %w", method, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url+"/api/"+method, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("dsh web: %s: %w", method, err)
	}
	// Anything but JSON is refused (415) before dispatch: DSH's fence
	// against blind cross-site "simple" requests.
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.client.Do(req)
	if err != nil {
		return fmt.Errorf("dsh web: %s: %w", method, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return fmt.Errorf("dsh web: %s: %w", method, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("dsh web: %s: HTTP %d: %s", method, resp.StatusCode, bytes.TrimSpace(raw))
	}
	var answer struct {
		Type   string `json:"type"`
		RPCID  string `json:"rpcId"`
		Result struct {
			OK    bool            `json:"ok"`
			Value json.RawMessage `json:"value"`
			Error *rpcError       `json:"error"`
		} `json:"result"`
	}
	if err := json.Unmarshal(raw, &answer); err != nil {
		return fmt.Errorf("dsh web: %s: an answer that is no server-response: %w: %s", method, err, raw)
	}
	if answer.Type != "server-response" || answer.RPCID != rpcID {
		return fmt.Errorf("dsh web: %s: answer %s; want a server-response to rpcId %s", method, raw, rpcID)
	}
	if !answer.Result.OK {
		if e := answer.Result.Error; e != nil {
			return fmt.Errorf("dsh web: %s: %s: %s %s", method, e.Code, e.Message, e.Details)
		}
		return fmt.Errorf("dsh web: %s: failed: %s", method, raw)
	}
	if value == nil {
		return nil
	}
	if err := json.Unmarshal(answer.Result.Value, value); err != nil {
		return fmt.Errorf("dsh web: %s: value %s: %w", method, answer.Result.Value, err)
	}
	return nil
}

// CreateSession opens a new conversation in cwd (the workspace root, as
// the browser's "new chat" in a folder) and returns its session id.
func (c *DSHWeb) CreateSession(ctx context.Context, cwd string) (string, error) {
	var v struct {
		SessionID string `json:"sessionId"`
	}
	if err := c.call(ctx, "session.create", map[string]any{"cwd": cwd}, &v); err != nil {
		return "", err
	}
	if v.SessionID == "" {
		return "", fmt.Errorf("dsh web: session.create answered no session id")
	}
	return v.SessionID, nil
}

// Prompt submits the user's message text to the session, as the browser's
// composer does (mode "queue": a turn starts when none runs); it returns
// once the host admitted it, not when the turn ends.
func (c *DSHWeb) Prompt(ctx context.Context, sessionID, text string) error {
	var v struct {
		Accepted bool `json:"accepted"`
	}
	payload := map[string]any{"sessionId": sessionID, "mode": "queue",
		"content": []map[string]string{{"type": "text", "text": text}}}
	if err := c.call(ctx, "session.prompt", payload, &v); err != nil {
		return err
	}
	if !v.Accepted {
		return fmt.Errorf("dsh web: session.prompt: not accepted")
	}
	return nil
}
