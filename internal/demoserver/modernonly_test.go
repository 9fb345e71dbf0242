package demoserver

import (
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpwatchdog/watchdog/internal/testbed/tsmodern"
)

// The Go modern-only server answers every legacy request as the real
// TypeScript SDK v2 with legacy: 'reject' does (status, JSON-RPC code,
// message and data), and serves server/discover listing only 2026-07-28.
func TestModernOnlyAnswersAsTheTypeScriptSDK(t *testing.T) {
	t.Parallel()
	goSrv := startTest(t, Options{ModernOnly: true})
	tsSrv := tsmodern.Start(t, tsmodern.Options{})
	const legacyInit = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`
	modernMeta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	for _, tt := range []struct {
		name, method, body string
		header             map[string]string
		sdksOwn            bool // answered by the SDK behind: its own words
	}{
		{"legacy initialize", "POST", legacyInit, nil, false},
		{"legacy initialize with a version header and a session", "POST", legacyInit,
			map[string]string{"Mcp-Protocol-Version": "2025-06-18", "Mcp-Session-Id": "abc"}, false},
		{"legacy ping", "POST", `{"jsonrpc":"2.0","id":"p","method":"ping"}`, map[string]string{"Mcp-Protocol-Version": "2025-11-25"}, false},
		{"legacy tools/call without a header", "POST", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`, nil, false},
		{"legacy notification", "POST", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil, false},
		{"GET", "GET", "", nil, false},
		{"DELETE", "DELETE", "", map[string]string{"Mcp-Session-Id": "abc"}, false},
		{"modern ping", "POST", `{"jsonrpc":"2.0","id":9,"method":"ping","params":{` + modernMeta + `}}`,
			map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "ping"}, true},
	} {
		goAns, tsAns := ask(t, goSrv.URL(), tt.method, tt.body, tt.header), ask(t, tsSrv.URL(), tt.method, tt.body, tt.header)
		if tt.sdksOwn {
			goAns.Message, tsAns.Message = "", ""
		}
		if !reflect.DeepEqual(goAns, tsAns) {
			t.Errorf("%s:\n  go %+v\n  ts %+v", tt.name, goAns, tsAns)
		}
	}
	for _, url := range []string{goSrv.URL(), tsSrv.URL()} {
		d := ask(t, url, "POST", `{"jsonrpc":"2.0","id":2,"method":"server/discover","params":{`+modernMeta+`}}`,
			map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "server/discover"})
		if d.Status != 200 || !strings.Contains(d.Result, `"supportedVersions":["2026-07-28"]`) {
			t.Errorf("server/discover at %s: %+v", url, d)
		}
	}
}

// reply is what a comparison of two servers' answers looks at.
type reply struct {
	Status  int
	Allow   string
	Code    int
	Message string
	Data    any
	Result  string `json:"-"`
}

func ask(t *testing.T, url, method, body string, header map[string]string) reply {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		for line := range strings.SplitSeq(string(raw), "\n") {
			if data, ok := strings.CutPrefix(line, "data: "); ok {
				raw = []byte(data)
			}
		}
	}
	var m struct {
		Result json.RawMessage
		Error  *struct {
			Code    int
			Message string
			Data    json.RawMessage
		}
	}
	_ = json.Unmarshal(raw, &m)
	r := reply{Status: resp.StatusCode, Allow: resp.Header.Get("Allow"), Result: string(m.Result)}
	if m.Error != nil {
		r.Code, r.Message = m.Error.Code, m.Error.Message
		_ = json.Unmarshal(m.Error.Data, &r.Data)
	}
	return r
}
