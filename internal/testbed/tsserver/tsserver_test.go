package tsserver

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwatchdog/watchdog/internal/mask"
)

// TestGoClientUsesEveryMode connects the Go SDK client to each mode, lists the tools and
// calls them; count's answers and the admin counter must agree.
func TestGoClientUsesEveryMode(t *testing.T) {
	t.Parallel()
	for _, opts := range []Options{
		{Mode: Stateful},
		{Mode: Stateless},
		{Mode: Quirk},
		{Mode: Stateful, JSONResponse: true},
		{}, // zero mode means stateful
	} {
		name := string(opts.mode())
		if opts.JSONResponse {
			name += "-json"
		}
		if opts.Mode == "" {
			name += "-default"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := Start(t, opts)
			if !strings.HasPrefix(s.URL(), "http://127.0.0.1:") || !strings.HasSuffix(s.URL(), "/mcp") {
				t.Fatalf("URL %q: want http://127.0.0.1:PORT/mcp", s.URL())
			}
			cs := connect(t, s.URL())
			useEveryTool(t, s, cs)
			wantSession := opts.mode() != Stateless
			if got := cs.ID() != ""; got != wantSession {
				t.Fatalf("client session id present = %v, want %v", got, wantSession)
			}
			if wantSession && !hasSession(t, s, cs.ID()) {
				t.Fatalf("Sessions() %d ids, missing the client's", len(s.Sessions(t)))
			}
		})
	}
}

// useEveryTool lists the tools, echoes (which the server reports as a
// call event) and counts twice through cs.
func useEveryTool(t *testing.T, s *Server, cs *mcp.ClientSession) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("list tools: %v", err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"count", "echo"}) {
		t.Fatalf("tools %v, want [count echo]", names)
	}
	if got := callText(t, cs, "echo", map[string]any{"text": "hello there"}); got != "hello there" {
		t.Fatalf("echo = %q, want hello there", got)
	}
	callID := cs.ID()
	if callID == "" {
		callID = "-" // stateless: no session
	}
	eventually(t, "the echo call as an event", func() bool {
		calls := s.Calls()
		return len(calls) == 1 && calls[0].ID == callID && calls[0].Text == "hello there"
	})
	for _, want := range []string{"1", "2"} {
		if got := callText(t, cs, "count", nil); got != want {
			t.Fatalf("count = %q, want %s", got, want)
		}
	}
	if got := s.Count(t); got != 2 {
		t.Fatalf("admin count = %d, want 2", got)
	}
}

// TestSessionAnswers pins the raw answers the watchdog classifies: unknown and missing
// session ids per mode and method.
func TestSessionAnswers(t *testing.T) {
	t.Parallel()
	const headerRequired = "Bad Request: Mcp-Session-Id header is required"
	const noValid = "Bad Request: No valid session ID provided"
	tests := []struct {
		mode      Mode
		method    string
		sessionID string
		status    int
		code      int    // JSON-RPC error code; 0: body is not JSON-RPC
		contains  string // in the body
	}{
		{Stateful, http.MethodPost, "unknown-session", 404, -32001, "Session not found"},
		{Stateful, http.MethodPost, "", 400, -32000, headerRequired},
		{Stateful, http.MethodGet, "unknown-session", 404, -32001, "Session not found"},
		{Stateful, http.MethodGet, "", 400, -32000, headerRequired},
		{Stateful, http.MethodDelete, "unknown-session", 404, -32001, "Session not found"},
		{Quirk, http.MethodPost, "unknown-session", 400, -32000, noValid},
		{Quirk, http.MethodPost, "", 400, -32000, noValid},
		{Quirk, http.MethodGet, "unknown-session", 400, 0, "Invalid or missing session ID"},
		{Quirk, http.MethodDelete, "unknown-session", 400, 0, "Invalid or missing session ID"},
		{Stateless, http.MethodPost, "unknown-session", 200, 0, `"result"`},
		{Stateless, http.MethodGet, "", 405, -32000, "Method not allowed."},
		{Stateless, http.MethodDelete, "unknown-session", 405, -32000, "Method not allowed."},
	}
	servers := map[Mode]*Server{}
	for _, m := range []Mode{Stateful, Quirk, Stateless} {
		servers[m] = Start(t, Options{Mode: m})
	}
	for _, tc := range tests {
		name := string(tc.mode) + "/" + tc.method + "/" + map[bool]string{true: "missing", false: "unknown"}[tc.sessionID == ""]
		t.Run(name, func(t *testing.T) {
			body := ""
			if tc.method == http.MethodPost {
				body = pingBody
			}
			a := do(t, tc.method, servers[tc.mode].URL(), tc.sessionID, body)
			if a.status != tc.status || a.rpcCode != tc.code || !strings.Contains(a.body, tc.contains) {
				t.Fatalf("HTTP %d code %d body %q; want HTTP %d code %d containing %q",
					a.status, a.rpcCode, a.body, tc.status, tc.code, tc.contains)
			}
		})
	}
}

// TestStatelessIssuesNoSession: initialize answers without Mcp-Session-Id and nothing is
// kept.
func TestStatelessIssuesNoSession(t *testing.T) {
	t.Parallel()
	s := Start(t, Options{Mode: Stateless})
	a := do(t, http.MethodPost, s.URL(), "", initBody)
	if a.status != http.StatusOK || !jsonHasResult(a.body) {
		t.Fatalf("initialize: HTTP %d body %q", a.status, a.body)
	}
	if id := a.header.Get("Mcp-Session-Id"); id != "" {
		t.Fatalf("stateless initialize issued session id %q", mask.ID(id))
	}
	if ids := s.Sessions(t); len(ids) != 0 {
		t.Fatalf("Sessions() = %d ids, want none", len(ids))
	}
}

// TestStatefulSessionLifecycle: a raw session answers pings and opens a GET stream; after
// Forget its id gets the SDK's 404 and it is logged as forgotten.
func TestStatefulSessionLifecycle(t *testing.T) {
	t.Parallel()
	s := Start(t, Options{Mode: Stateful})
	id := initSession(t, s)
	if !hasSession(t, s, id) {
		t.Fatal("Sessions() does not list the new session")
	}
	if a := ping(t, s, id); a.status != http.StatusOK || !jsonHasResult(a.body) {
		t.Fatalf("ping on live session: HTTP %d body %q", a.status, a.body)
	}
	assertGetStream(t, s.URL(), id)

	s.Forget(t)
	if ids := s.Sessions(t); len(ids) != 0 {
		t.Fatalf("after Forget, Sessions() = %d ids", len(ids))
	}
	if reason := s.WaitEnded(t, id); reason != "forgotten" {
		t.Fatalf("end reason %q, want forgotten", reason)
	}
	if a := ping(t, s, id); a.status != http.StatusNotFound || a.rpcCode != -32001 {
		t.Fatalf("ping on forgotten session: HTTP %d body %q, want 404 -32001", a.status, a.body)
	}
}

// assertGetStream opens the session's standalone SSE stream and checks its headers.
func assertGetStream(t *testing.T, url, id string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", id)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET stream: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("GET stream: HTTP %d, Content-Type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
}

// TestClientCloseDeletesSession: the Go client's Close sends DELETE, which the SDK
// transport handles; the session ends as deleted.
func TestClientCloseDeletesSession(t *testing.T) {
	t.Parallel()
	for _, m := range []Mode{Stateful, Quirk} {
		t.Run(string(m), func(t *testing.T) {
			t.Parallel()
			s := Start(t, Options{Mode: m})
			cs := connect(t, s.URL())
			id := cs.ID()
			if err := cs.Close(); err != nil {
				t.Fatalf("close: %v", err)
			}
			if reason := s.WaitEnded(t, id); reason != "deleted" {
				t.Fatalf("end reason %q, want deleted", reason)
			}
			if hasSession(t, s, id) {
				t.Fatal("Sessions() still lists the deleted session")
			}
		})
	}
}
