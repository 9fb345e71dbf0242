package mcphttp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sdkServer is a real Go SDK MCP server behind httptest on loopback.
type sdkServer struct {
	srv  *mcp.Server
	http *httptest.Server
}

func newSDKServer(t *testing.T, opts mcp.StreamableHTTPOptions, wrap func(http.Handler) http.Handler) *sdkServer {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "test-server", Version: "1.0.0"}, nil)
	opts.Logger = slog.New(slog.DiscardHandler)
	var h http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &opts)
	if wrap != nil {
		h = wrap(h)
	}
	hs := httptest.NewServer(h)
	t.Cleanup(hs.Close)
	return &sdkServer{srv: srv, http: hs}
}

func newClient(t *testing.T, url string, mod func(*Options)) *Client {
	t.Helper()
	opts := Options{URL: url, Timeout: 10 * time.Second}
	if mod != nil {
		mod(&opts)
	}
	c, err := New(opts)
	if err != nil {
		t.Fatalf("New(%q): %v", url, err)
	}
	return c
}

func testCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// initialize opens a legacy session and returns its id and the negotiated
// protocol version.
func initialize(t *testing.T, c *Client) (string, string) {
	t.Helper()
	ctx := testCtx(t)
	resp, err := c.Do(ctx, Request{Method: "initialize", Params: map[string]any{
		"protocolVersion": "2025-06-18",
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]string{"name": "mcphttp-test", "version": "0"},
	}})
	if err != nil || resp.Status != http.StatusOK || resp.RPC == nil || resp.RPC.Result == nil {
		t.Fatalf("initialize: status %d, rpc %+v, err %v, body %q", resp.Status, resp.RPC, err, resp.Body)
	}
	var res struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if err := json.Unmarshal(resp.RPC.Result, &res); err != nil || res.ProtocolVersion == "" {
		t.Fatalf("initialize result %s: %v", resp.RPC.Result, err)
	}
	if resp.SessionID != "" {
		n, err := c.Do(ctx, Request{Method: "notifications/initialized", SessionID: resp.SessionID, ProtocolVersion: res.ProtocolVersion})
		if err != nil || n.Status != http.StatusAccepted {
			t.Fatalf("notifications/initialized: status %d, err %v", n.Status, err)
		}
	}
	return resp.SessionID, res.ProtocolVersion
}

// seen is one request as a recording server saw it.
type seen struct {
	Method string
	Header http.Header
	Body   []byte
}

// recorder keeps every request it sees, then hands it to next.
type recorder struct {
	mu   sync.Mutex
	reqs []seen
	next http.Handler
}

func (r *recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	r.reqs = append(r.reqs, seen{req.Method, req.Header.Clone(), body})
	r.mu.Unlock()
	if r.next == nil {
		http.Error(w, "recorded", http.StatusTeapot)
		return
	}
	req.Body = io.NopCloser(bytes.NewReader(body))
	r.next.ServeHTTP(w, req)
}

func (r *recorder) all() []seen {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]seen(nil), r.reqs...)
}
