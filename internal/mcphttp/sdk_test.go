package mcphttp

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestAgainstSDK runs the client's whole life against the real Go SDK
// handler: JSON and SSE answers, stateful and stateless.
func TestAgainstSDK(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		opts      mcp.StreamableHTTPOptions
		wantSSE   bool
		stateless bool
	}{
		{"stateful SSE", mcp.StreamableHTTPOptions{SessionTimeout: time.Minute}, true, false},
		{"stateful JSON", mcp.StreamableHTTPOptions{SessionTimeout: time.Minute, JSONResponse: true}, false, false},
		{"stateless SSE", mcp.StreamableHTTPOptions{Stateless: true}, true, true},
		{"stateless JSON", mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true}, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newSDKServer(t, tt.opts, nil)
			c := newClient(t, s.http.URL, nil)
			ctx := testCtx(t)
			sid, pv := initialize(t, c)
			if (sid == "") != tt.stateless {
				t.Fatalf("session id %q from a stateless=%v server", sid, tt.stateless)
			}
			resp, err := c.Ping(ctx, sid, pv)
			if got := Judge(resp, err); got.Verdict != Alive {
				t.Fatalf("ping: %v %q (status %d)", got.Verdict, got.Reason, resp.Status)
			}
			if isSSE(resp.Header.Get("Content-Type")) != tt.wantSSE {
				t.Fatalf("ping answered with Content-Type %q, want SSE=%v", resp.Header.Get("Content-Type"), tt.wantSSE)
			}
			modern, err := c.Do(ctx, Request{Method: "ping", Modern: true})
			if tt.stateless {
				if got := Judge(modern, err); got.Verdict != Stateless {
					t.Fatalf("modern ping on a stateless server: %v %q", got.Verdict, got.Reason)
				}
				return
			}
			lifeOfSession(t, c, sid, pv)
		})
	}
}

// lifeOfSession: an unknown id is Lost, DELETE ends the session, and the
// ended session is Lost.
func lifeOfSession(t *testing.T, c *Client, sid, pv string) {
	t.Helper()
	ctx := testCtx(t)
	resp, err := c.Ping(ctx, "made-up-session-0123456789", pv)
	if got := Judge(resp, err); got.Verdict != Lost || resp.Status != http.StatusNotFound {
		t.Fatalf("unknown session: %d %v %q", resp.Status, got.Verdict, got.Reason)
	}
	if strings.Contains(Judge(resp, err).Reason, "made-up-session-0123456789") {
		t.Fatalf("reason leaks the session id: %q", Judge(resp, err).Reason)
	}
	del, err := c.DeleteVersion(ctx, sid, pv)
	if err != nil || del.Status/100 != 2 {
		t.Fatalf("DELETE: %d %v", del.Status, err)
	}
	resp, err = c.Ping(ctx, sid, pv)
	if got := Judge(resp, err); got.Verdict != Lost {
		t.Fatalf("ping after DELETE: %d %v %q", resp.Status, got.Verdict, got.Reason)
	}
}

// TestOpenStream: the SDK serves the standalone GET stream with 200 SSE;
// OpenStream returns at once instead of waiting on the open stream.
func TestOpenStream(t *testing.T) {
	t.Parallel()
	s := newSDKServer(t, mcp.StreamableHTTPOptions{SessionTimeout: time.Minute}, nil)
	c := newClient(t, s.http.URL, nil)
	sid, pv := initialize(t, c)
	resp, err := c.OpenStream(testCtx(t), sid, pv)
	if err != nil || resp.Status != http.StatusOK || !isSSE(resp.Header.Get("Content-Type")) {
		t.Fatalf("GET stream: %d %q %v", resp.Status, resp.Header.Get("Content-Type"), err)
	}
	resp, err = c.OpenStream(testCtx(t), "made-up-session-0123456789", pv)
	if err != nil || resp.Status != http.StatusNotFound {
		t.Fatalf("GET with an unknown session: %d %v", resp.Status, err)
	}
}

// TestSessionlessPingOnStateful: a ping without a session (the healer's
// liveness check) is answered by a stateful SDK server and leaves no session
// behind.
func TestSessionlessPingOnStateful(t *testing.T) {
	t.Parallel()
	s := newSDKServer(t, mcp.StreamableHTTPOptions{SessionTimeout: time.Minute}, nil)
	c := newClient(t, s.http.URL, nil)
	for _, pv := range []string{"", "2025-06-18"} {
		resp, err := c.Ping(testCtx(t), "", pv)
		if got := Judge(resp, err); got.Verdict != Alive || resp.SessionID != "" {
			t.Fatalf("version %q: %v %q, session id issued: %v", pv, got.Verdict, got.Reason, resp.SessionID != "")
		}
	}
	// The server closes the throwaway session after answering: poll.
	deadline := time.Now().Add(20 * time.Second)
	for hasSessions(s.srv) {
		if time.Now().After(deadline) {
			t.Fatal("a sessionless ping left a session on the server")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func hasSessions(srv *mcp.Server) bool {
	for range srv.Sessions() {
		return true
	}
	return false
}

// TestNamesMatchSDK: the header and _meta names are the SDK's.
func TestNamesMatchSDK(t *testing.T) {
	t.Parallel()
	pairs := [][2]string{
		{MetaProtocolVersion, mcp.MetaKeyProtocolVersion},
		{MetaClientInfo, mcp.MetaKeyClientInfo},
		{MetaClientCapabilities, mcp.MetaKeyClientCapabilities},
	}
	for _, p := range pairs {
		if p[0] != p[1] {
			t.Errorf("%q != SDK %q", p[0], p[1])
		}
	}
	if !slices.Contains(mcp.SupportedProtocolVersions(), ModernVersion) {
		t.Errorf("the SDK does not support %s", ModernVersion)
	}
}
