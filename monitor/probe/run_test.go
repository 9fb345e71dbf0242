package probe

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwatchdog/watchdog/internal/mcphttp"
)

// TestRunGoSDK probes the real Go SDK handler in each of its shapes while a
// "host" session is open on it: the probe reports the shape and ends only
// its own session.
func TestRunGoSDK(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		opts     mcp.StreamableHTTPOptions
		era      string
		stateful bool
	}{
		{"stateful SSE", mcp.StreamableHTTPOptions{SessionTimeout: time.Minute}, EraLegacy, true},
		{"stateful JSON", mcp.StreamableHTTPOptions{SessionTimeout: time.Minute, JSONResponse: true}, EraLegacy, true},
		{"stateless SSE", mcp.StreamableHTTPOptions{Stateless: true}, EraBoth, false},
		{"stateless JSON", mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true}, EraBoth, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newSDKServer(t, tt.opts, nil)
			c := newClient(t, s.http.URL)
			host := hostSession(t, c)
			r, err := Run(testCtx(t), c)
			if err != nil {
				t.Fatalf("Run: %v; notes %q", err, r.Notes)
			}
			if r.Era != tt.era || r.Stateful != tt.stateful || r.SessionLeft || r.GET404Quirk {
				t.Fatalf("era %q stateful %v left %v quirk %v; notes %q", r.Era, r.Stateful, r.SessionLeft, r.GET404Quirk, r.Notes)
			}
			if slices.Contains(r.SupportedVersions, mcphttp.ModernVersion) == tt.stateful {
				t.Fatalf("supported versions %q from a stateful=%v server", r.SupportedVersions, tt.stateful)
			}
			if r.ProtocolVersion != LegacyVersion || r.ServerName != "probe-test-server" || r.ServerVersion != "1.2.3" {
				t.Fatalf("initialize result: %q %q %q", r.ProtocolVersion, r.ServerName, r.ServerVersion)
			}
			if tt.stateful {
				checkStatefulReport(t, r)
				// The host's session survives; the probe's is gone.
				waitSessions(t, s.srv, 1)
				if !knows(s.srv, host) {
					t.Fatal("the probe ended the host's session")
				}
				return
			}
			if len(r.Notes) != 0 {
				t.Fatalf("notes on a clean stateless server: %q", r.Notes)
			}
			waitSessions(t, s.srv, 0)
		})
	}
}

func checkStatefulReport(t *testing.T, r Report) {
	t.Helper()
	if !strings.HasPrefix(r.UnknownSession, "404 (spec)") || r.LostAnswer.Status() != 404 || r.GETStream != "200: stream offered" || r.Delete != "supported" {
		t.Fatalf("unknown session %q, GET %q, DELETE %q; notes %q", r.UnknownSession, r.GETStream, r.Delete, r.Notes)
	}
	for _, step := range []string{StepDiscover, StepInitialize, StepInitialized, StepPing, StepGET, StepPingUnknown, StepDelete, StepPingAfterDelete} {
		if _, ok := r.Timings[step]; !ok {
			t.Errorf("no timing for %s", step)
		}
	}
	if len(r.Notes) != 0 {
		t.Fatalf("notes on a clean stateful server: %q", r.Notes)
	}
}

// hostSession opens a session the way a host would (a stateless server
// issues none) and returns its id.
func hostSession(t *testing.T, c *mcphttp.Client) string {
	t.Helper()
	ctx := testCtx(t)
	resp, err := c.Do(ctx, mcphttp.Request{Method: "initialize", Params: map[string]any{
		"protocolVersion": "2025-11-25", "capabilities": map[string]any{},
		"clientInfo": map[string]string{"name": "dsh-mcp-client", "version": "1"},
	}})
	if err != nil || resp.Status != 200 {
		t.Fatalf("host initialize: %d %v", resp.Status, err)
	}
	if resp.SessionID != "" {
		n, err := c.Do(ctx, mcphttp.Request{Method: "notifications/initialized", SessionID: resp.SessionID, ProtocolVersion: "2025-11-25"})
		if err != nil || n.Status != 202 {
			t.Fatalf("host initialized: %d %v", n.Status, err)
		}
	}
	return resp.SessionID
}
