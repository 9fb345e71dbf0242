package hostsview

import (
	"strings"
	"testing"

	"github.com/mcpwatchdog/watchdog/internal/host"
	"github.com/mcpwatchdog/watchdog/internal/host/find"
	"github.com/mcpwatchdog/watchdog/internal/host/hostfile"
	"github.com/mcpwatchdog/watchdog/internal/host/judge"
)

// Measured: with no host found, the "looked for" list had no commas.
func TestNoHostFoundListsWhatWasLookedFor(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	Build(nil, nil, nil).WriteText(&b)
	if want := "looked for: " + strings.Join(host.Names(), ", ") + ")"; !strings.Contains(b.String(), want) {
		t.Fatalf("%q; want %q", b.String(), want)
	}
}

// Each file is a line with its scope; a server the host takes from a
// higher scope there says where it is not used; what came from a file is
// escaped.
func TestScopesAndShadows(t *testing.T) {
	t.Parallel()
	p := host.ClaudeCode()
	srv := func(name, url string, path ...string) hostfile.Server {
		return hostfile.Server{Name: name, Transport: host.StreamableHTTP, URL: url, Path: path}
	}
	found := []find.Found{{Profile: p, Files: []find.File{
		{Path: "/h/.claude.json", Scope: find.Scope{Kind: host.UserScope}, Servers: []hostfile.Server{
			srv("mem", "http://127.0.0.1:1/mcp", "mcpServers", "mem", "url"),
			srv("mem", "http://127.0.0.1:2/mcp", "projects", "/p", "mcpServers", "mem", "url")}},
		{Path: "/p/.mcp.json", Scope: find.Scope{Kind: host.ProjectScope, Dir: "/p"}, Servers: []hostfile.Server{
			srv("evil\x1b[31m", "http://127.0.0.1:3/mcp", "mcpServers", "evil", "url")}},
	}}}
	doc := Build(found, map[string]judge.Facts{p.Name: {}}, nil)
	var b strings.Builder
	doc.WriteText(&b)
	out := b.String()
	for _, want := range []string{"user: /h/.claude.json", "project /p: /p/.mcp.json", "local /p scope",
		"not used in local /p", `evil\x1b[31m`} {
		if !strings.Contains(out, want) {
			t.Errorf("the text lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\x1b") {
		t.Errorf("an escape sequence from a file reached the terminal:\n%q", out)
	}
	if s := doc.Hosts[0].Servers[1]; s.Scope != "local /p" || s.Shadowed != "" {
		t.Errorf("the local entry: %+v", s)
	}
}
