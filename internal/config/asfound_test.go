package config_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwatchdog/watchdog/internal/config"
	"github.com/mcpwatchdog/watchdog/internal/host/find"
)

const secret = "ABCDEFGHIJKLMNOPQRSTUVWXYZ" // a proxy secret's shape

// machine writes the files into a temp home and finds what is there.
func machine(t *testing.T, files map[string]string, upstreams map[string]string) config.Machine {
	t.Helper()
	home := t.TempDir()
	for name, body := range files {
		path := filepath.Join(home, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if body == "" {
			continue // a folder alone
		}
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	getenv := func(string) string { return "" }
	o := find.Options{Home: home, GOOS: "linux", Getenv: getenv}
	return config.Machine{Found: find.Discover(t.Context(), o), Upstreams: upstreams, Home: home, GOOS: "linux", Getenv: getenv}
}

type want struct {
	hosts   []string
	servers []string // name=url, +listen when proxied
	summary string
}

type asFoundCase struct {
	name      string
	files     map[string]string
	upstreams map[string]string
	want      want
}

func asFoundCases() []asFoundCase {
	return []asFoundCase{
		{"nothing on the machine", nil, nil,
			want{summary: "no config file, and no MCP host with an HTTP server found"}},
		{"one host, its HTTP server only", map[string]string{".cursor/mcp.json": `{"mcpServers": {
			"mem": {"url": "http://127.0.0.1:9001/mcp"}, "local": {"command": "x"},
			"off": {"url": "http://127.0.0.1:9002/mcp", "disabled": true},
			"keyed": {"url": "http://127.0.0.1:9003/mcp", "headers": {"Authorization": "Bearer x"}},
			"far": {"url": "http://example.com/mcp"}}}`}, nil,
			want{[]string{"Cursor"}, []string{"mem=http://127.0.0.1:9001/mcp"}, "watching what is on this machine: Cursor (1 server)"}},
		{"two hosts share a URL, a name clashes", map[string]string{
			".cursor/mcp.json": `{"mcpServers": {"mem": {"url": "http://127.0.0.1:9001/mcp"}}}`,
			".claude.json": `{"mcpServers": {"mem": {"type": "http", "url": "http://127.0.0.1:9005/mcp"},
				"same": {"type": "http", "url": "http://127.0.0.1:9001/mcp"}, "a b": {"type": "http", "url": "http://127.0.0.1:9006/mcp"}}}`}, nil,
			want{[]string{"Claude Code", "Cursor"}, []string{"mem=http://127.0.0.1:9005/mcp", "same=http://127.0.0.1:9001/mcp", "a-b=http://127.0.0.1:9006/mcp"},
				"Claude Code (3 servers), Cursor (1 server)"}},
		{"adopted: the record's server through its proxy; an unknown proxy left out", map[string]string{
			".cursor/mcp.json": `{"mcpServers": {"mem": {"url": "http://localhost:14301/` + secret + `/mcp"},
				"lost": {"url": "http://127.0.0.1:14399/` + secret + `/mcp"}}}`},
			map[string]string{"127.0.0.1:14301": "http://127.0.0.1:9001/mcp"},
			want{[]string{"Cursor"}, []string{"mem=http://127.0.0.1:9001/mcp+127.0.0.1:14301"}, "Cursor (1 server, 1 through the watchdog's proxy)"}},
		{"Nowledge Mem installed, no host", map[string]string{".local/share/co.nowledge.mem.desktop/x": ""}, nil,
			want{nil, []string{"nowledge-mem=http://127.0.0.1:14242/mcp"}, "watching what is on this machine: Nowledge Mem (installed)"}},
		{"Nowledge Mem installed, named by a host", map[string]string{".config/co.nowledge.mem.desktop/x": "",
			".cursor/mcp.json": `{"mcpServers": {"memory": {"url": "http://127.0.0.1:14242/mcp"}}}`}, nil,
			want{[]string{"Cursor"}, []string{"memory=http://127.0.0.1:14242/mcp"}, "Cursor (1 server), Nowledge Mem (installed)"}},
	}
}

// TestAsFound: what a missing config file means on machines of each kind.
func TestAsFound(t *testing.T) {
	t.Parallel()
	for _, tc := range asFoundCases() {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, err := config.AsFound(machine(t, tc.files, tc.upstreams))
			if err != nil {
				t.Fatal(err)
			}
			checkAsFound(t, c, tc.want)
		})
	}
}

func checkAsFound(t *testing.T, c config.Config, w want) {
	t.Helper()
	var hosts, servers []string
	for _, h := range c.Hosts {
		hosts = append(hosts, h.Name)
	}
	for _, s := range c.Servers {
		e := s.Name + "=" + s.URL
		if s.ProxyListen != "" {
			e += "+" + s.ProxyListen
		}
		servers = append(servers, e)
	}
	if strings.Join(hosts, ",") != strings.Join(w.hosts, ",") || strings.Join(servers, " ") != strings.Join(w.servers, " ") {
		t.Errorf("hosts %q servers %q, want %q %q", hosts, servers, w.hosts, w.servers)
	}
	if got := c.Found.Summary(); !strings.Contains(got, w.summary) {
		t.Errorf("summary %q, want it to say %q", got, w.summary)
	}
	if len(c.Hosts) == 0 && c.MainHost().Name != "" {
		t.Errorf("no host found, yet the main host is %q", c.MainHost().Name)
	}
	for _, s := range c.Servers {
		for _, l := range s.Logs {
			if strings.HasPrefix(l, "~") {
				t.Errorf("%s: log glob %q not expanded", s.Name, l)
			}
		}
	}
}
