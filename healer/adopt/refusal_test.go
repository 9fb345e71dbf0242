package adopt

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwatchdog/watchdog/healer/proxy"
	"github.com/mcpwatchdog/watchdog/internal/host"
	"github.com/mcpwatchdog/watchdog/internal/proxyurl"
)

// refusal is a host's file adopt must refuse, and what the refusal says.
type refusal struct {
	name    string
	p       host.Profile
	as      string // the file's name under the temp folder
	body    string // "": a directory there instead of a file
	mode    os.FileMode
	server  string // the server named with --server
	is      error  // the error it must wrap
	says    []string
	allSays []string // said without --server too (nil: says)
}

// unknownProxy is a proxy URL neither a config nor a record knows.
var unknownProxy = proxyurl.For("127.0.0.1:14999", proxy.NewSecret())

// refusals: one case for each way adopt refuses a host's file or entry.
var refusals = []refusal{
	{name: "named twice, JSON", p: host.Cursor(), as: ".cursor/mcp.json",
		body:   "{\n  \"mcpServers\": {\n    \"mem\": {\"url\": \"http://127.0.0.1:9/mcp\"},\n    \"mem\": {\"url\": \"http://127.0.0.1:8/mcp\"}\n  }\n}\n",
		server: "mem", is: ErrNoServer,
		says: []string{"named twice", "lines 3 and 4", "remove or rename one", "adopt"}},
	{name: "named twice, YAML list", p: host.Continue(), as: ".continue/config.yaml",
		body:   "mcpServers:\n  - name: mem\n    type: streamable-http\n    url: http://127.0.0.1:9/mcp\n  - name: mem\n    type: streamable-http\n    url: http://127.0.0.1:8/mcp\n",
		server: "mem", is: ErrNoServer,
		says: []string{"named twice", "lines 4 and 7", "remove or rename one"}},
	{name: "named twice, TOML", p: host.CodexCLI(), as: ".codex/config.toml",
		body:   "[mcp_servers.mem]\nurl = \"http://127.0.0.1:9/mcp\"\n\n[mcp_servers.mem]\nurl = \"http://127.0.0.1:8/mcp\"\n",
		server: "mem", is: ErrNoServer,
		says: []string{"line 4", "already exists", "fix the file"}},
	{name: "named twice, YAML map", p: host.Goose(), as: ".config/goose/config.yaml",
		body:   "extensions:\n  mem:\n    type: streamable_http\n    uri: http://127.0.0.1:9/mcp\n  mem:\n    type: streamable_http\n    uri: http://127.0.0.1:8/mcp\n",
		server: "mem", is: ErrNoServer,
		says: []string{"named twice", "lines 4 and 7", "remove or rename one"}},
	{name: "a directory", p: host.Cursor(), as: ".cursor/mcp.json",
		server: "mem", is: ErrNoServer,
		says: []string{"is not a regular file (it is a directory)", "move it out of the way", "adopt again"}},
	{name: "bad syntax", p: host.Cursor(), as: ".cursor/mcp.json",
		body:   "{\"mcpServers\": {\n  \"mem\": {\"url\": \"http://127.0.0.1:9/mcp\"\n}\n",
		server: "mem", is: ErrNoServer,
		says: []string{"does not parse", "line 4", "fix the file"}},
	{name: "unreadable", p: host.Cursor(), as: ".cursor/mcp.json",
		body: `{"mcpServers": {"mem": {"url": "http://127.0.0.1:9/mcp"}}}`, mode: 0o200,
		server: "mem", is: ErrNoServer,
		says: []string{"permission denied", "chmod u+r"}},
	{name: "read-only", p: host.Cursor(), as: ".cursor/mcp.json",
		body: `{"mcpServers": {"mem": {"url": "http://127.0.0.1:9/mcp"}}}`, mode: 0o444,
		server: "mem", is: ErrNoServer,
		says: []string{"is read-only (mode 0444)", "chmod u+w"}},
	{name: "oauth", p: host.Cursor(), as: ".cursor/mcp.json",
		body:   "{\"mcpServers\": {\n  \"mem\": {\"url\": \"http://127.0.0.1:9/mcp\", \"oauth\": {\"clientId\": \"x\"}}\n}}\n",
		server: "mem", is: ErrOAuth,
		says:    []string{".cursor/mcp.json line 2", "signs in with OAuth", "--force"},
		allSays: []string{".cursor/mcp.json line 2", "signs in with OAuth"}},
	{name: "not an http URL", p: host.Cursor(), as: ".cursor/mcp.json",
		body:   "{\"mcpServers\": {\n  \"mem\": {\"url\": \"ws://127.0.0.1:9/mcp\"}\n}}\n",
		server: "mem", is: ErrNoServer,
		says: []string{".cursor/mcp.json line 2", "not an http(s) URL"}},
	{name: "no URL", p: host.Cursor(), as: ".cursor/mcp.json",
		body:   "{\"mcpServers\": {\n  \"mem\": {\"headers\": {}}\n}}\n",
		server: "mem", is: ErrNoServer,
		says: []string{".cursor/mcp.json", "names no URL"}},
	{name: "unknown proxy", p: host.Cursor(), as: ".cursor/mcp.json",
		body:   "{\"mcpServers\": {\n  \"mem\": {\"url\": \"" + unknownProxy + "\"}\n}}\n",
		server: "mem", is: ErrNoServer,
		says:    []string{".cursor/mcp.json line 2", "unknown proxy", "put the server's own URL back"},
		allSays: []string{".cursor/mcp.json line 2", "put the server's own URL back"}},
	{name: "a URL over lines", p: host.Goose(), as: ".config/goose/config.yaml",
		body:   "extensions:\n  mem:\n    type: streamable_http\n    uri: >-\n      http://127.0.0.1:9/mcp\n",
		server: "mem", is: ErrNoServer,
		says: []string{"config.yaml line 4", "write it on one line"}},
	{name: "no such server", p: host.Cursor(), as: ".cursor/mcp.json",
		body:   `{"mcpServers": {"other": {"url": "ws://127.0.0.1:9/mcp"}}}`,
		server: "mem", is: ErrNoServer,
		says:    []string{`no server "mem"`, ".cursor/mcp.json", "other"},
		allSays: []string{".cursor/mcp.json", "other"}},
}

// Issue 60: every refusal of adopt names the file (and the line where
// there is one), says what is wrong and what to do. Measured before: a
// server named twice said "named twice in its file (lines 3 and 4)"
// without the file, and a directory where the host's file should be said
// only "no such server to adopt". Each case runs with every server
// (nothing adoptable: adopt fails) and with the server named (--server).
func TestEveryRefusalNamesTheFile(t *testing.T) {
	t.Parallel()
	for _, tt := range refusals {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if tt.mode&0o400 == 0 && tt.mode != 0 && os.Geteuid() == 0 {
				t.Skip("root reads every file")
			}
			path := tt.write(t)
			for _, named := range []bool{false, true} {
				tt.check(t, path, named)
			}
		})
	}
}

// write makes the file (or the directory) in a temp folder.
func (tt refusal) write(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), filepath.FromSlash(tt.as))
	must(t, os.MkdirAll(filepath.Dir(path), 0o700))
	if tt.body == "" {
		must(t, os.Mkdir(path, 0o700))
		return path
	}
	must(t, os.WriteFile(path, []byte(tt.body), 0o600))
	if tt.mode != 0 {
		must(t, os.Chmod(path, tt.mode))
	}
	return path
}

// check adopts the host, its server named or not, and looks at what the
// refusal says.
func (tt refusal) check(t *testing.T, path string, named bool) {
	t.Helper()
	r := newRig(t, tt.p, path)
	says := tt.says
	if named {
		r.o.Servers = []string{tt.server}
	} else if tt.allSays != nil {
		says = tt.allSays
	}
	res, err := Adopt(t.Context(), r.o)
	switch {
	case !named && tt.is == ErrOAuth:
		// Not named, an OAuth server is left alone, not refused: adopt
		// fails only for want of another server.
		if err == nil {
			err = errors.New(lines(res))
		}
	case !errors.Is(err, tt.is):
		t.Fatalf("named %v: %v (%+v), want %v", named, err, res, tt.is)
	}
	for _, w := range append([]string{path}, says...) {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("named %v: %q\ndoes not say %q", named, err, w)
		}
	}
	if got, err := os.ReadFile(path); err == nil && string(got) != tt.body {
		t.Errorf("named %v: the file was written: %s", named, got)
	}
}
