package hosts

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/demoserver"
	"github.com/mcpwatchdog/watchdog/internal/host"
	"github.com/mcpwatchdog/watchdog/internal/host/find"
	"github.com/mcpwatchdog/watchdog/internal/proxyurl"
)

// cliCase is one real host and its own commands for MCP servers.
type cliCase struct {
	prof host.Profile
	cli  func(t *testing.T) HostCLI
	// add registers a server as the host's CLI does by default (Claude
	// Code: the project's local scope; Gemini CLI: the project's
	// .gemini/settings.json; the others: their user file).
	add func(name, url string) []string
	// list is the host's command that shows its servers (nil: it has
	// none), and connected says whether its output shows name at url
	// connected (or, for a host whose list does not connect, listed).
	list      func(name string) []string
	connected func(out, name, url string) bool
	scope     func(project string) string
}

func mcpList(string) []string { return []string{"mcp", "list"} }
func user(string) string      { return "user" }

// cliCaseOf is the case of a command line host the rig runs per prompt.
func cliCaseOf(h CLIHost, list func(string) []string, connected func(out, name, url string) bool) cliCase {
	return cliCase{prof: h.Prof, add: h.register, list: list, connected: connected, scope: user,
		cli: func(t *testing.T) HostCLI {
			return mustInstalled(t, h).cli(HostOptions{ModelURL: "http://127.0.0.1:9"})
		}}
}

var cliCases = []cliCase{
	{prof: host.ClaudeCode(), cli: func(t *testing.T) HostCLI { return ClaudeCLI(MustClaude(t)) },
		add:  func(name, url string) []string { return []string{"mcp", "add", "--transport", "http", name, url} },
		list: mcpList, connected: func(out, name, url string) bool {
			return strings.Contains(out, name+": "+url+" (HTTP) - ✔ Connected")
		},
		scope: func(project string) string { return "local " + project }},
	{prof: host.GeminiCLI(), cli: func(t *testing.T) HostCLI { return GeminiCLI(MustGemini(t)) },
		add:  func(name, url string) []string { return []string{"mcp", "add", "-t", "http", name, url} },
		list: mcpList, connected: func(out, name, url string) bool {
			return strings.Contains(out, name+": "+url+" (http) - Connected")
		},
		scope: func(project string) string { return "project " + project }},
	{prof: host.CodexCLI(), cli: func(t *testing.T) HostCLI { return CodexCLI(MustCodex(t)) },
		add:  func(name, url string) []string { return []string{"mcp", "add", name, "--url", url} },
		list: mcpList, connected: func(out, name, url string) bool {
			return strings.Contains(out, name) && strings.Contains(out, url)
		},
		scope: user},
	cliCaseOf(Opencode(), mcpList, func(out, name, url string) bool {
		out = noANSI(out)
		return strings.Contains(out, "✓ "+name+" connected") && strings.Contains(out, url)
	}),
	cliCaseOf(Copilot(), func(name string) []string { return []string{"mcp", "get", name} }, func(out, _, url string) bool {
		return strings.Contains(out, "URL: "+url)
	}),
	cliCaseOf(Qwen(), mcpList, func(out, name, url string) bool {
		return strings.Contains(noANSI(out), "✓ "+name+": "+url+" (http) - Connected")
	}),
	cliCaseOf(Cline(), nil, nil),
}

// noANSI is s without its terminal colour escapes.
func noANSI(s string) string { return regexp.MustCompile(`\x1b\[[0-9;]*m`).ReplaceAllString(s, "") }

// TestHostsOwnCLIsRoundTrip holds, on the real Claude Code, Gemini CLI,
// Codex CLI, opencode, Copilot CLI, Qwen Code and Cline: the host's own
// CLI registers a server (in the scope it picks by default), `watchdog
// hosts` finds it there, adopt routes it through the running watchdog's
// proxy, the host's own `mcp list` connects through the proxy (Cline has
// none), the host's CLI then adds another server, and release puts the
// first back at its own URL keeping the host's later edit.
func TestHostsOwnCLIsRoundTrip(t *testing.T) {
	t.Parallel()
	for _, c := range cliCases {
		t.Run(c.prof.Name, func(t *testing.T) {
			t.Parallel()
			roundTrip(t, c)
		})
	}
}

// prepare leaves the host's HOME as its first run would for a project.
func (c cliCase) prepare(t *testing.T, home, project string) {
	t.Helper()
	switch c.prof.Name {
	case host.GeminiCLI().Name: // Gemini reads a project's file only in a folder it trusts
		writeFile(t, filepath.Join(home, ".gemini", "trustedFolders.json"), fmt.Sprintf(`{%q: "TRUST_FOLDER"}`, project))
	case host.CodexCLI().Name: // Codex wants its home there, as its first run leaves it
		if err := os.MkdirAll(filepath.Join(home, ".codex"), 0o700); err != nil {
			t.Fatal(err)
		}
	}
}

func roundTrip(t *testing.T, c cliCase) {
	cli := c.cli(t)
	r := NewRig(t, GoSDK, time.Hour)
	other := startOther(t)
	project := r.workdir()
	c.prepare(t, r.Home, project)
	must := func(what string, args ...string) string {
		t.Helper()
		out, err := cli(r.Home, project, args...)
		if err != nil {
			t.Fatalf("%s: %v\n%s", what, err, out)
		}
		return out
	}
	listed := func(pairs ...string) {
		t.Helper()
		if c.list == nil {
			return
		}
		for i := 0; i < len(pairs); i += 2 {
			if out := must("mcp list", c.list(pairs[i])...); !c.connected(out, pairs[i], pairs[i+1]) {
				t.Fatalf("the host's own list of %s at %s:\n%s", pairs[i], pairs[i+1], out)
			}
		}
	}
	must("mcp add", c.add(ServerName, r.Server.url)...)
	fo := r.findOptions()
	if got := scopeOf(t, c.prof, fo, ServerName); got != c.scope(project) {
		t.Fatalf("watchdog hosts finds %s in scope %q; want %q", ServerName, got, c.scope(project))
	}
	// A name of its own: adopt picks the proxy's port from it, and the
	// cases run at once.
	w := r.StartWatchdog("roundtrip-"+strings.ReplaceAll(strings.ToLower(c.prof.Name), " ", "-"), time.Hour, false, "process = \"\"\nport = 0")
	r.Adopt(w, c.prof)
	proxied := urlOf(t, c.prof, fo, ServerName)
	if _, ok := proxyurl.Parse(proxied); !ok {
		t.Fatalf("after adopt %s goes to %s; want the proxy", ServerName, proxied)
	}
	listed(ServerName, proxied)
	must("mcp add (another server, after adopt)", c.add("later", other)...)
	r.Release(w, c.prof)
	if got := urlOf(t, c.prof, fo, ServerName); got != r.Server.url {
		t.Fatalf("after release %s goes to %s; want its own URL %s", ServerName, got, r.Server.url)
	}
	if got := urlOf(t, c.prof, fo, "later"); got != other {
		t.Fatalf("release lost the host's later edit: later goes to %q", got)
	}
	listed(ServerName, r.Server.url, "later", other)
}

// startOther is a second real server, for the host's later edit.
func startOther(t *testing.T) string {
	t.Helper()
	s, err := demoserver.Start(t.Context(), demoserver.Options{Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s.URL()
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// entry finds server name among the host's files as `watchdog hosts` reads them.
func entry(t *testing.T, p host.Profile, fo find.Options, name string) (find.File, string, string) {
	t.Helper()
	fd := find.Found{Profile: p, Files: find.Files(p, fo)}
	for _, f := range fd.Files {
		for _, s := range f.Servers {
			if s.Name == name && fd.ShadowedBy(f, s) == "" {
				return f, f.ScopeOf(p, s).String(), s.URL
			}
		}
	}
	t.Fatalf("%s has no server %s in %+v", p.Name, name, fd.Files)
	return find.File{}, "", ""
}

func scopeOf(t *testing.T, p host.Profile, fo find.Options, name string) string {
	_, scope, _ := entry(t, p, fo, name)
	return scope
}

func urlOf(t *testing.T, p host.Profile, fo find.Options, name string) string {
	_, _, url := entry(t, p, fo, name)
	return url
}
