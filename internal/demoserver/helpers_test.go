package demoserver

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// waitLimit is generous: a loaded 2-core machine must not fail these tests.
const waitLimit = 20 * time.Second

type testServer struct {
	*Server
	store, log string
}

// startTest starts a server with a store and a log in a temp dir; it is
// closed when the test ends.
func startTest(t *testing.T, opts Options) *testServer {
	t.Helper()
	dir := t.TempDir()
	opts.StorePath = filepath.Join(dir, "mcp-sessions.json")
	opts.LogPath = filepath.Join(dir, "server.log")
	s, err := Start(t.Context(), opts)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return &testServer{Server: s, store: opts.StorePath, log: opts.LogPath}
}

// connect opens an SDK client session closed at the end of the test.
func connect(t *testing.T, url, name string) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), waitLimit)
	defer cancel()
	cs, err := Connect(ctx, url, name)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// waitFor polls cond until it holds or waitLimit passes.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// readStore parses the store file strictly; any invalid document fails.
func readStore(t *testing.T, path string) storeFile {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read store: %v", err)
	}
	var doc storeFile
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("store is not valid JSON: %v\n%s", err, b)
	}
	if doc.Sessions == nil {
		t.Fatalf("store has no sessions list: %s", b)
	}
	return doc
}

func storeIDs(t *testing.T, path string) []string {
	t.Helper()
	var ids []string
	for _, s := range readStore(t, path).Sessions {
		ids = append(ids, s.ID)
	}
	return ids
}

func readLog(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read log: %v", err)
	}
	return string(b)
}

func logHas(t *testing.T, path, want string) func() bool {
	return func() bool { return strings.Contains(readLog(t, path), want) }
}

// callEcho calls the echo tool and returns its text.
func callEcho(ctx context.Context, cs *mcp.ClientSession, text string) (string, error) {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": text}})
	if err != nil {
		return "", err
	}
	return resultText(res), nil
}

func resultText(res *mcp.CallToolResult) string {
	if res == nil || len(res.Content) == 0 {
		return ""
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); ok {
		return tc.Text
	}
	return ""
}

// rawPost sends one JSON-RPC message the way a Streamable HTTP client does.
func rawPost(t *testing.T, url, sessionID, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	if sessionID != "" {
		req.Header.Set(sessionHeader, sessionID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST: %v", err)
	}
	t.Cleanup(func() { _ = resp.Body.Close() })
	return resp
}

const pingBody = `{"jsonrpc":"2.0","id":1,"method":"ping"}`

const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{` +
	`"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

func findEnded(list []EndedSession, id string) (EndedSession, bool) {
	for _, e := range list {
		if e.ID == id {
			return e, true
		}
	}
	return EndedSession{}, false
}
