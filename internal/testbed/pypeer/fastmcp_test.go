package pypeer

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/mcphttp"
)

const legacyVersion = "2025-06-18"

// FastMCP's idle timeout (the SDK's session manager) counts only while no
// request and no GET stream of the session is open: a session with no
// stream ends after it, one whose stream is open outlives it.
func TestFastMCPIdleTimeoutStandsWhileAStreamIsOpen(t *testing.T) {
	const idle = 300 * time.Millisecond
	srv := StartFastMCP(t, FastMCPOptions{IdleTimeout: idle})
	c, err := mcphttp.New(mcphttp.Options{URL: srv.URL()})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	bare, streamed := open(t, c), open(t, c)
	stream := holdStream(t, srv.URL(), streamed)
	time.Sleep(3 * idle)
	for _, tt := range []struct {
		name, sid string
		want      mcphttp.Verdict
	}{
		{"no GET stream", bare, mcphttp.Lost},
		{"its GET stream open", streamed, mcphttp.Alive},
	} {
		resp, err := c.Ping(ctx, tt.sid, legacyVersion)
		if got := mcphttp.Judge(resp, err); got.Verdict != tt.want {
			t.Errorf("a session with %s, after 3 idle timeouts: %s (%s), want %s", tt.name, got.Verdict, got.Reason, tt.want)
		}
	}
	_ = stream.Body.Close()
}

// open initializes a session and returns its id.
func open(t *testing.T, c *mcphttp.Client) string {
	t.Helper()
	ctx := context.Background()
	resp, err := c.Do(ctx, mcphttp.Request{Method: "initialize", ProtocolVersion: legacyVersion, Params: map[string]any{
		"protocolVersion": legacyVersion, "capabilities": map[string]any{},
		"clientInfo": map[string]string{"name": "pypeer-test", "version": "1"}}})
	if err != nil || resp.SessionID == "" {
		t.Fatalf("initialize: %v, status %d, no session id: %s", err, resp.Status, resp.Body)
	}
	if _, err := c.Do(ctx, mcphttp.Request{Method: "notifications/initialized", SessionID: resp.SessionID, ProtocolVersion: legacyVersion}); err != nil {
		t.Fatal(err)
	}
	return resp.SessionID
}

// holdStream opens the session's GET stream and leaves it open.
func holdStream(t *testing.T, url, sid string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set(mcphttp.HeaderSessionID, sid)
	req.Header.Set(mcphttp.HeaderProtocolVersion, legacyVersion)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET stream: %v %v", err, resp)
	}
	t.Cleanup(func() { _ = resp.Body.Close() })
	return resp
}
