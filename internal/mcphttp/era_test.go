package mcphttp

import (
	"net/http"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwatchdog/watchdog/internal/testbed/tsmodern"
)

// LearnEra against the real servers of each era: the Go SDK's stateful
// handler (legacy: its server/discover lists no 2026-07-28), its stateless
// one (both eras: modern, and a legacy ping still served) and the
// TypeScript SDK v2 with legacy: 'reject' (modern-only: a legacy ping gets
// 400 -32022 naming only 2026-07-28). None is left holding a session.
func TestLearnEra(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		url      func(t *testing.T) string
		want     Era
		sessions func() int
	}{
		{"go-sdk stateful", nil, EraLegacy, nil},
		{"go-sdk stateless", nil, EraBoth, nil},
		{"ts-sdk v2 legacy reject", func(t *testing.T) string { return tsmodern.Start(t, tsmodern.Options{}).URL() }, EraModernOnly, nil},
	}
	for i := range tests {
		tt := &tests[i]
		if tt.url == nil {
			stateless := tt.want == EraBoth
			tt.url = func(t *testing.T) string {
				s := newSDKServer(t, mcp.StreamableHTTPOptions{Stateless: stateless, SessionTimeout: time.Minute}, nil)
				tt.sessions = func() int { return sessionCount(s.srv) }
				return s.http.URL
			}
		}
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := newClient(t, tt.url(t), nil)
			e, d, err := c.LearnEra(testCtx(t), map[string]any{"_meta": map[string]any{MetaClientInfo: map[string]string{"name": "host", "version": "1"}}})
			if err != nil || e != tt.want {
				t.Fatalf("era %q, %v; want %q (discovery %+v)", e, err, tt.want, d)
			}
			if tt.want != EraLegacy && (!d.Modern || string(d.Capabilities) == "" || string(d.ServerInfo) == "") {
				t.Fatalf("discovery of a modern server: %+v", d)
			}
			// The SDK may close a session it opened for server/discover a
			// moment after answering.
			for deadline := time.Now().Add(5 * time.Second); tt.sessions != nil && tt.sessions() != 0; time.Sleep(10 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("the server holds %d sessions after the probe", tt.sessions())
				}
			}
		})
	}
}

func TestEraOfAnswers(t *testing.T) {
	t.Parallel()
	jsonH := http.Header{"Content-Type": {"application/json"}}
	refusal := answerOf(400, jsonH, `{"jsonrpc":"2.0","error":{"code":-32022,"message":"Unsupported protocol version: 2025-11-25","data":{"supported":["2026-07-28"],"requested":"2025-11-25"}},"id":"watchdog-1"}`)
	served := answerOf(200, jsonH, `{"jsonrpc":"2.0","id":"watchdog-1","result":{}}`)
	modern := Discovery{Modern: true}
	for _, tt := range []struct {
		name   string
		d      Discovery
		legacy Response
		want   Era
	}{
		{"modern-only", modern, refusal, EraModernOnly},
		{"both", modern, served, EraBoth},
		{"legacy", Discovery{}, served, EraLegacy},
	} {
		if got := EraOf(tt.d, tt.legacy); got != tt.want {
			t.Errorf("%s: %q", tt.name, got)
		}
	}
	if !ModernOnlyRefusalRaw(refusal.Status, refusal.Body) || ModernOnlyRefusalRaw(served.Status, served.Body) {
		t.Error("ModernOnlyRefusalRaw")
	}
	legacyRefusal := answerOf(400, jsonH, `{"jsonrpc":"2.0","error":{"code":-32022,"message":"no","data":{"supported":["2025-11-25"]}},"id":"watchdog-1"}`)
	for _, tt := range []struct {
		r    Response
		want bool
	}{
		{legacyRefusal, true},
		{answerOf(400, jsonH, `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: Mcp-Session-Id header is required"},"id":null}`), true},
		{answerOf(404, nil, "session not found"), true},
		{answerOf(404, jsonH, `{"jsonrpc":"2.0","id":"watchdog-1","error":{"code":-32601,"message":"Method not found"}}`), false},
		{refusal, false},
		{served, false},
	} {
		if got := LegacyRefusalRaw(tt.r.Status, tt.r.Header, tt.r.Body); got != tt.want {
			t.Errorf("LegacyRefusalRaw(%d %s) = %v", tt.r.Status, tt.r.Body, got)
		}
	}
}

// ReadDiscovery: a server/discover result, a modern refusal and a legacy
// server's refusal.
func TestReadDiscovery(t *testing.T) {
	t.Parallel()
	jsonH := http.Header{"Content-Type": {"application/json"}}
	for _, tt := range []struct {
		name   string
		r      Response
		modern bool
		info   string
	}{
		{"result", answerOf(200, jsonH, `{"jsonrpc":"2.0","id":"watchdog-1","result":{"supportedVersions":["2026-07-28"],"capabilities":{},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}}}}`), true, `{"name":"s","version":"1"}`},
		{"legacy versions only", answerOf(200, jsonH, `{"jsonrpc":"2.0","id":"watchdog-1","result":{"supportedVersions":["2025-11-25"],"serverInfo":{"name":"old","version":"0"}}}`), false, `{"name":"old","version":"0"}`},
		{"-32020", answerOf(400, jsonH, `{"jsonrpc":"2.0","id":"watchdog-1","error":{"code":-32020,"message":"header mismatch"}}`), true, ""},
		{"-32022 modern", answerOf(400, jsonH, `{"jsonrpc":"2.0","id":"watchdog-1","error":{"code":-32022,"message":"x","data":{"supported":["2026-07-28"]}}}`), true, ""},
		{"legacy 400", answerOf(400, jsonH, `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Bad Request: Mcp-Session-Id header is required"}}`), false, ""},
		{"not json", answerOf(404, nil, "404 page not found"), false, ""},
	} {
		d := ReadDiscovery(tt.r)
		if d.Modern != tt.modern || string(d.ServerInfo) != tt.info {
			t.Errorf("%s: %+v", tt.name, d)
		}
	}
}

func sessionCount(srv *mcp.Server) int {
	n := 0
	for ss := range srv.Sessions() {
		if ss.ID() != "" {
			n++
		}
	}
	return n
}
