package hostfile

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/mcpwatchdog/watchdog/internal/host"
)

const bom = "\uFEFF"

// A file saved with a UTF-8 byte order mark (Windows editors write one)
// is read, and rewritten and put back with its mark where it was. Measured
// before: hujson refused it ("invalid character '\ufeff'").
func TestByteOrderMarkKept(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		f    Format
		l    host.Layout
		body string
	}{
		{JSON, host.Cursor().Layout, `{"mcpServers": {"mem": {"url": "http://127.0.0.1:9/mcp"}}}`},
		{TOML, host.CodexCLI().Layout, "[mcp_servers.mem]\nurl = \"http://127.0.0.1:9/mcp\"\n"},
		{YAML, host.DSH().Layout, "- name: '@deepseek-ai/dsh-mcp-client'\n  config: {serverName: mem, transport: streamable-http, url: 'http://127.0.0.1:9/mcp'}\n"},
	} {
		data := []byte(bom + tt.body)
		ss, err := Servers(tt.f, data, tt.l)
		if err != nil || len(ss) != 1 || ss[0].URL != "http://127.0.0.1:9/mcp" || !ss[0].Editable {
			t.Fatalf("%s with a BOM: %+v, %v", tt.f, ss, err)
		}
		out, err := Rewrite(tt.f, data, tt.l, []Edit{{Path: ss[0].Path, From: ss[0].URL, To: "http://127.0.0.1:1/k/mcp"}})
		if err != nil || !bytes.HasPrefix(out, []byte(bom)) || !bytes.Contains(out, []byte("127.0.0.1:1/k/mcp")) {
			t.Fatalf("%s rewritten: %q, %v", tt.f, out, err)
		}
		back, err := Rewrite(tt.f, out, tt.l, []Edit{{Path: ss[0].Path, From: "http://127.0.0.1:1/k/mcp", To: ss[0].URL, Literal: ss[0].Literal}})
		if err != nil || !bytes.Equal(back, data) {
			t.Fatalf("%s put back: %q, %v; want %q", tt.f, back, err, data)
		}
	}
}

// Two entries of one name in one table: the host uses one of them, and
// which is its parser's business; both are read, each says it is named
// twice and where. Measured before: adopt failed with "changed since it
// was read", the wrong cause.
func TestDuplicateNamesSaid(t *testing.T) {
	t.Parallel()
	data := []byte("{\"mcpServers\": {\n  \"a\": {\"url\": \"http://127.0.0.1:9/mcp\"},\n  \"b\": {\"url\": \"http://127.0.0.1:7/mcp\"},\n  \"a\": {\"url\": \"http://127.0.0.1:8/mcp\"}\n}}")
	ss, err := Servers(JSON, data, host.Cursor().Layout)
	if err != nil || len(ss) != 3 {
		t.Fatalf("servers: %+v, %v", ss, err)
	}
	for _, s := range ss {
		why := s.Unproxyable()
		switch s.Name {
		case "a":
			if !strings.Contains(why, "named twice") || !strings.Contains(why, "lines 2 and 4") || !strings.Contains(why, "remove or rename one") {
				t.Errorf("a at line %d: %q; want it named twice, at lines 2 and 4, and what to do", s.Line, why)
			}
		case "b":
			if why != "" || s.Line != 3 {
				t.Errorf("b: %q at line %d", why, s.Line)
			}
		}
	}
}

// A URL the proxy cannot stand in front of says why: another scheme, an
// unexpanded variable, no host.
func TestUnproxyableURLsSayWhy(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ url, says string }{
		{"ws://127.0.0.1:9/mcp", "not an http(s) URL"},
		{"${MY_URL}", "not an http(s) URL"},
		{"http:///mcp", "names no host"},
		{"http://a b/mcp", "does not parse"},
		{"http://127.0.0.1:9/mcp", ""},
		{"https://mcp.example.com/mcp", ""},
	} {
		s := Server{Name: "x", Transport: host.StreamableHTTP, URL: tt.url}
		if got := s.Unproxyable(); tt.says == "" && got != "" || !strings.Contains(got, tt.says) {
			t.Errorf("%s: %q, want it to say %q", tt.url, got, tt.says)
		}
	}
	if got := (Server{Name: "x", Transport: host.Stdio}).Unproxyable(); !strings.Contains(got, "stdio") {
		t.Errorf("stdio: %q", got)
	}
}

// TOML defines a table or a key once; Codex's parser refuses a file that
// does it twice. Measured before: the second table was merged into the
// first, and adopt rewrote one of two entries the host never loads. Now
// it does not parse, and says where; so does every other TOML error.
func TestTOMLDefinedTwiceDoesNotParse(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ name, data, says string }{
		{"table twice", "[mcp_servers.mem]\nurl = \"http://127.0.0.1:9/mcp\"\n\n[mcp_servers.mem]\nurl = \"http://127.0.0.1:8/mcp\"\n", "line 4"},
		{"key twice", "[mcp_servers.mem]\nurl = \"http://127.0.0.1:9/mcp\"\nurl = \"http://127.0.0.1:8/mcp\"\n", "line 3"},
		{"unclosed table", "model = \"m\"\n[mcp_servers.mem\nurl = 1\n", "line 2"},
	} {
		_, err := Servers(TOML, []byte(tt.data), host.CodexCLI().Layout)
		if !errors.Is(err, ErrSyntax) || !strings.Contains(err.Error(), tt.says) {
			t.Errorf("%s: %v; want %v at %s", tt.name, err, ErrSyntax, tt.says)
		}
	}
}

// A URL written over lines cannot be rewritten, but its line is known
// (YAML): a refusal can say where it is.
func TestLineOfAURLNotEditable(t *testing.T) {
	t.Parallel()
	data := []byte("extensions:\n  mem:\n    type: streamable_http\n    uri: >-\n      http://127.0.0.1:9/mcp\n")
	ss, err := Servers(YAML, data, host.Goose().Layout)
	if err != nil || len(ss) != 1 || ss[0].Editable || ss[0].Line != 4 {
		t.Fatalf("%+v, %v; want one entry, not editable, at line 4", ss, err)
	}
}
