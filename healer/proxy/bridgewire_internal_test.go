package proxy

import (
	"encoding/json"
	"net/http"
	"reflect"
	"testing"

	"github.com/mcpwatchdog/watchdog/internal/mcphttp"
)

var testHost = hostInfoOf(json.RawMessage(`{"protocolVersion":"2025-11-25","capabilities":{"roots":{"listChanged":true}},` +
	`"clientInfo":{"name":"host","version":"1.0"}}`))

// A legacy message in the 2026-07-28 shape: the envelope in params._meta
// (the host's own _meta keys kept), everything else as the host wrote it,
// and the name header where the spec wants one.
func TestToModern(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body, level string
		wantMethod        string
		wantName          string
		wantParams        map[string]any // params less _meta
		wantMeta          map[string]any // beyond the envelope
	}{
		{"tools/call", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"<a&b>"}}}`, "",
			"tools/call", "echo", map[string]any{"name": "echo", "arguments": map[string]any{"text": "<a&b>"}}, nil},
		{"no params", `{"jsonrpc":"2.0","id":"x","method":"tools/list"}`, "",
			"tools/list", "", map[string]any{}, nil},
		{"the host's own _meta and a log level", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"count","_meta":{"progressToken":3}}}`, "debug",
			"tools/call", "count", map[string]any{"name": "count"}, map[string]any{"progressToken": 3.0, metaLogLevel: "debug"}},
		{"a resource's uri", `{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"file:///ü b"}}`, "",
			"resources/read", "=?base64?ZmlsZTovLy/DvCBi?=", map[string]any{"uri": "file:///ü b"}, nil},
		{"a notification", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4}}`, "",
			"notifications/cancelled", "", map[string]any{"requestId": 4.0}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m, err := toModern([]byte(tt.body), testHost, tt.level)
			if err != nil {
				t.Fatal(err)
			}
			if m.method != tt.wantMethod || m.name != tt.wantName {
				t.Fatalf("method %q name %q, want %q %q", m.method, m.name, tt.wantMethod, tt.wantName)
			}
			var got, orig map[string]any
			_ = json.Unmarshal(m.body, &got)
			_ = json.Unmarshal([]byte(tt.body), &orig)
			if got["id"] != orig["id"] || got["method"] != orig["method"] {
				t.Fatalf("id or method changed: %s", m.body)
			}
			params, _ := got["params"].(map[string]any)
			meta, _ := params["_meta"].(map[string]any)
			delete(params, "_meta")
			if !reflect.DeepEqual(params, tt.wantParams) {
				t.Fatalf("params %v, want %v", params, tt.wantParams)
			}
			want := map[string]any{mcphttp.MetaProtocolVersion: "2026-07-28",
				mcphttp.MetaClientCapabilities: map[string]any{"roots": map[string]any{"listChanged": true}},
				mcphttp.MetaClientInfo:         map[string]any{"name": "host", "version": "1.0"}}
			for k, v := range tt.wantMeta {
				want[k] = v
			}
			if !reflect.DeepEqual(meta, want) {
				t.Fatalf("_meta %v, want %v", meta, want)
			}
		})
	}
}

func TestToModernRefuses(t *testing.T) {
	t.Parallel()
	for _, body := range []string{`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, `{"jsonrpc":"2.0","id":1,"method":"x","params":[1]}`,
		`not json`, `{"jsonrpc":"2.0","id":1}`, `{"jsonrpc":"2.0","id":1,"method":"x","params":{"_meta":7}}`} {
		if _, err := toModern([]byte(body), testHost, ""); err == nil {
			t.Errorf("%s: bridged", body)
		}
	}
}

// SEP-2243's header values, as the Go SDK encodes them.
func TestEncodeHeaderValue(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"echo": "echo", "": "", "a b": "a b", " lead": "=?base64?IGxlYWQ=?=",
		"ü": "=?base64?w7w=?=", "tab\t": "=?base64?dGFiCQ==?=", "=?base64?x?=": "=?base64?PT9iYXNlNjQ/eD89?=", "new\nline": "=?base64?bmV3CmxpbmU=?="} {
		if got := encodeHeaderValue(in); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}

func TestModernHeader(t *testing.T) {
	t.Parallel()
	host := http.Header{"Mcp-Protocol-Version": {"2025-11-25"}, "Mcp-Session-Id": {"abc"}, "Authorization": {"Bearer k"},
		"Accept": {"application/json"}}
	h := modernHeader(host, modernMessage{method: "tools/call", name: "echo"})
	want := http.Header{"Mcp-Protocol-Version": {"2026-07-28"}, "Mcp-Method": {"tools/call"}, "Mcp-Name": {"echo"},
		"Authorization": {"Bearer k"}, "Accept": {"application/json, text/event-stream"}, "Content-Type": {"application/json"}}
	if !reflect.DeepEqual(h, want) {
		t.Fatalf("headers %v, want %v", h, want)
	}
	if host.Get("Mcp-Protocol-Version") != "2025-11-25" {
		t.Fatal("the host's own headers were changed")
	}
}

// The proxy's initialize answer: the version the host asked for (a legacy
// one), the server's capabilities and its info from server/discover's _meta.
func TestInitializeAnswer(t *testing.T) {
	t.Parallel()
	d := mcphttp.ReadDiscovery(mcphttp.Response{Status: 200, RPC: &mcphttp.RPCMessage{Result: json.RawMessage(
		`{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{"listChanged":true}},"instructions":"be kind",` +
			`"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"srv","version":"2.4"}}}`)}})
	for asked, want := range map[string]string{"2025-06-18": "2025-06-18", "2026-07-28": "2025-11-25", "": "2025-11-25"} {
		out, err := initializeAnswer(json.RawMessage(`"i1"`), hostInfo{version: asked}, d, "cfg-name")
		if err != nil {
			t.Fatal(err)
		}
		var m struct {
			ID     string
			Result struct {
				ProtocolVersion string
				Capabilities    map[string]any
				ServerInfo      struct{ Name, Version string }
				Instructions    string
			}
		}
		if err := json.Unmarshal(out, &m); err != nil {
			t.Fatal(err)
		}
		r := m.Result
		if m.ID != "i1" || r.ProtocolVersion != want || r.ServerInfo.Name != "srv" || r.ServerInfo.Version != "2.4" ||
			r.Instructions != "be kind" || r.Capabilities["tools"] == nil {
			t.Errorf("asked %q: %s", asked, out)
		}
	}
	out, _ := initializeAnswer(json.RawMessage(`1`), hostInfo{}, mcphttp.Discovery{Modern: true}, "cfg-name")
	if want := `{"id":1,"jsonrpc":"2.0","result":{"capabilities":{},"protocolVersion":"2025-11-25","serverInfo":{"name":"cfg-name","version":""}}}`; string(out) != want {
		t.Errorf("without a server's info: %s\nwant %s", out, want)
	}
}

func TestIsModernRequest(t *testing.T) {
	t.Parallel()
	claim := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`
	legacy := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`
	for _, tt := range []struct {
		header, body string
		want         bool
	}{{"", claim, true}, {"2026-07-28", legacy, true}, {"", legacy, false}, {"2025-11-25", legacy, false}, {"", "[]", false}} {
		h := http.Header{}
		if tt.header != "" {
			h.Set("MCP-Protocol-Version", tt.header)
		}
		if got := isModernRequest(h, []byte(tt.body)); got != tt.want {
			t.Errorf("header %q body %s: %v", tt.header, tt.body, got)
		}
	}
}

// FuzzToModern: whatever a host sends, the bridge either refuses it or
// sends JSON with the same method, the envelope in params._meta, and a
// name header that decodes to the params' name.
func FuzzToModern(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{}}}`))
	f.Add([]byte(`{"jsonrpc":"2.0","method":"notifications/cancelled"}`))
	f.Add([]byte(`{"method":"resources/read","params":{"uri":" x\u0000","_meta":{"a":null}}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		m, err := toModern(body, testHost, "info")
		if err != nil {
			return
		}
		var out struct {
			Method string `json:"method"`
			Params struct {
				Meta map[string]json.RawMessage `json:"_meta"`
			} `json:"params"`
		}
		if err := json.Unmarshal(m.body, &out); err != nil {
			t.Fatalf("not JSON: %s", m.body)
		}
		if out.Method != m.method || out.Method == "" {
			t.Fatalf("method %q, told %q", out.Method, m.method)
		}
		if string(out.Params.Meta[mcphttp.MetaProtocolVersion]) != `"2026-07-28"` || out.Params.Meta[mcphttp.MetaClientCapabilities] == nil {
			t.Fatalf("no envelope: %s", m.body)
		}
		for _, c := range m.name {
			if c < 0x20 || c > 0x7e {
				t.Fatalf("name header %q is not visible ASCII", m.name)
			}
		}
	})
}
