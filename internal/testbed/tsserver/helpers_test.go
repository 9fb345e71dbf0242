package tsserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const (
	pingBody = `{"jsonrpc":"2.0","id":7,"method":"ping"}`
	initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",` +
		`"capabilities":{},"clientInfo":{"name":"tsserver-test","version":"1"}}}`
)

// answer is one raw HTTP exchange with the server.
type answer struct {
	status  int
	header  http.Header
	body    string
	rpcCode int
	rpcMsg  string
}

// do sends one raw request; sessionID "" sends no Mcp-Session-Id header.
func do(t *testing.T, method, url, sessionID, body string) answer {
	t.Helper()
	a, err := send(method, url, sessionID, body)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// send is do for callers that expect a refused connection (a server starting).
func send(method, url, sessionID, body string) (answer, error) {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return answer{}, err
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if sessionID != "" {
		req.Header.Set("Mcp-Session-Id", sessionID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return answer{}, fmt.Errorf("%s %s: %w", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return answer{}, fmt.Errorf("%s %s: read: %w", method, url, err)
	}
	a := answer{status: resp.StatusCode, header: resp.Header, body: string(b)}
	var rpc struct {
		Error struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(b, &rpc) == nil {
		a.rpcCode, a.rpcMsg = rpc.Error.Code, rpc.Error.Message
	}
	return a, nil
}

// initSession initializes a session with raw HTTP and returns its id.
func initSession(t *testing.T, s *Server) string {
	t.Helper()
	a := do(t, http.MethodPost, s.URL(), "", initBody)
	id := a.header.Get("Mcp-Session-Id")
	if a.status != http.StatusOK || id == "" {
		t.Fatalf("initialize: HTTP %d, session id %q, body %s", a.status, id, a.body)
	}
	return id
}

func connect(t *testing.T, url string) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := mcp.NewClient(&mcp.Implementation{Name: "tsserver-test", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatalf("connect %s: %v", url, err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// callText calls a tool and returns its single text content.
func callText(t *testing.T, cs *mcp.ClientSession, name string, args any) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	if res.IsError || len(res.Content) != 1 {
		t.Fatalf("call %s: error %v, content %v", name, res.IsError, res.Content)
	}
	text, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("call %s: content %T, want text", name, res.Content[0])
	}
	return text.Text
}

// eventually polls cond until it holds, failing after a minute (loaded machines).
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func hasSession(t *testing.T, s *Server, id string) bool {
	t.Helper()
	return slices.Contains(s.Sessions(t), id)
}

// ping posts a raw ping on a session.
func ping(t *testing.T, s *Server, id string) answer {
	t.Helper()
	return do(t, http.MethodPost, s.URL(), id, pingBody)
}

func jsonHasResult(body string) bool {
	// SSE answers carry the JSON-RPC message on a data: line.
	for line := range strings.SplitSeq(body, "\n") {
		line = strings.TrimPrefix(strings.TrimSpace(line), "data: ")
		var m map[string]json.RawMessage
		if json.Unmarshal([]byte(line), &m) == nil {
			if _, ok := m["result"]; ok {
				return true
			}
		}
	}
	return false
}
