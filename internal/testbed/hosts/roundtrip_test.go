package hosts

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/healer/adopt"
	"github.com/mcpwatchdog/watchdog/healer/proxy"
	"github.com/mcpwatchdog/watchdog/internal/host"
	"github.com/mcpwatchdog/watchdog/internal/host/find"
	"github.com/mcpwatchdog/watchdog/internal/proxyurl"
	"github.com/mcpwatchdog/watchdog/internal/testbed/demoserver"
)

// cliCase is one real host and its own commands for MCP servers.
type cliCase struct {
	prof host.Profile
	cli  func(t *testing.T) HostCLI
	// add registers a server as the host's CLI does by default (Claude
	// Code: the project's local scope; Gemini CLI: the project's
	// .gemini/settings.json; Codex CLI: ~/.codex/config.toml).
	add func(name, url string) []string
	// connected says whether `mcp list` shows name at url connected (a
	// host whose list does not connect: listed).
	connected func(out, name, url string) bool
	scope     func(project string) string
}

var cliCases = []cliCase{
	{prof: host.ClaudeCode(), cli: func(t *testing.T) HostCLI { return ClaudeCLI(MustClaude(t)) },
		add: func(name, url string) []string { return []string{"mcp", "add", "--transport", "http", name, url} },
		connected: func(out, name, url string) bool {
			return strings.Contains(out, name+": "+url+" (HTTP) - ✔ Connected")
		},
		scope: func(project string) string { return "local " + project }},
	{prof: host.GeminiCLI(), cli: func(t *testing.T) HostCLI { return GeminiCLI(MustGemini(t)) },
		add: func(name, url string) []string { return []string{"mcp", "add", "-t", "http", name, url} },
		connected: func(out, name, url string) bool {
			return strings.Contains(out, name+": "+url+" (http) - Connected")
		},
		scope: func(project string) string { return "project " + project }},
	{prof: host.CodexCLI(), cli: func(t *testing.T) HostCLI { return CodexCLI(MustCodex(t)) },
		add: func(name, url string) []string { return []string{"mcp", "add", name, "--url", url} },
		connected: func(out, name, url string) bool {
			return strings.Contains(out, name) && strings.Contains(out, url)
		},
		scope: func(string) string { return "user" }},
}

// TestHostsOwnCLIsRoundTrip holds what issue 45 found holding, on the real
// Claude Code, Gemini CLI and Codex CLI: the host's own CLI registers a
// server (in the scope it picks by default), `watchdog hosts` finds it
// there, adopt routes it through the running watchdog's proxy, the host's
// own `mcp list` connects through the proxy, the host's CLI then adds
// another server, and release puts the first back at its own URL keeping
// the host's later edit.
func TestHostsOwnCLIsRoundTrip(t *testing.T) {
	t.Parallel()
	for _, c := range cliCases {
		t.Run(c.prof.Name, func(t *testing.T) {
			t.Parallel()
			roundTrip(t, c)
		})
	}
}

func roundTrip(t *testing.T, c cliCase) {
	cli := c.cli(t)
	r := NewRig(t, GoSDK, time.Hour)
	other := startOther(t)
	project := t.TempDir()
	switch c.prof.Name {
	case host.GeminiCLI().Name: // Gemini reads a project's file only in a folder it trusts
		writeFile(t, filepath.Join(r.Home, ".gemini", "trustedFolders.json"), fmt.Sprintf(`{%q: "TRUST_FOLDER"}`, project))
	case host.CodexCLI().Name: // Codex wants its home there, as its first run leaves it
		if err := os.MkdirAll(filepath.Join(r.Home, ".codex"), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	must := func(what string, args ...string) string {
		t.Helper()
		out, err := cli(r.Home, project, args...)
		if err != nil {
			t.Fatalf("%s: %v\n%s", what, err, out)
		}
		return out
	}
	must("mcp add", c.add(ServerName, r.Server.url)...)
	fo := find.Options{Home: r.Home, GOOS: runtime.GOOS, Projects: []string{project},
		Getenv: func(k string) string { return map[string]string{"CODEX_HOME": filepath.Join(r.Home, ".codex")}[k] }}
	if got := scopeOf(t, c.prof, fo, ServerName); got != c.scope(project) {
		t.Fatalf("watchdog hosts finds %s in scope %q; want %q", ServerName, got, c.scope(project))
	}

	// A name of its own: adopt picks the proxy's port from it, and the
	// cases run at once.
	w := r.StartWatchdog("roundtrip-"+strings.ReplaceAll(strings.ToLower(c.prof.Name), " ", "-"), time.Hour, false, "process = \"\"\nport = 0")
	secret, err := proxy.LoadSecret(w.State)
	if err != nil {
		t.Fatal(err)
	}
	o := adopt.Options{Host: c.prof, Files: find.Paths(c.prof, fo), ConfigPath: w.Config, StateDir: w.State, Secret: secret,
		Servers: []string{ServerName}, Served: w.served()}
	if res, err := adopt.Adopt(t.Context(), o); err != nil || !res.Changed {
		t.Fatalf("adopt: %+v %v", res, err)
	}
	proxied := urlOf(t, c.prof, fo, ServerName)
	if _, ok := proxyurl.Parse(proxied); !ok {
		t.Fatalf("after adopt %s goes to %s; want the proxy", ServerName, proxied)
	}
	if out := must("mcp list", "mcp", "list"); !c.connected(out, ServerName, proxied) {
		t.Fatalf("the host's own mcp list, through the proxy:\n%s", out)
	}

	must("mcp add (another server, after adopt)", c.add("later", other)...)
	if _, err := adopt.Release(t.Context(), o); err != nil {
		t.Fatalf("release: %v", err)
	}
	if got := urlOf(t, c.prof, fo, ServerName); got != r.Server.url {
		t.Fatalf("after release %s goes to %s; want its own URL %s", ServerName, got, r.Server.url)
	}
	if got := urlOf(t, c.prof, fo, "later"); got != other {
		t.Fatalf("release lost the host's later edit: later goes to %q", got)
	}
	if out := must("mcp list", "mcp", "list"); !c.connected(out, ServerName, r.Server.url) || !c.connected(out, "later", other) {
		t.Fatalf("the host's own mcp list after release:\n%s", out)
	}
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

// served waits, as `watchdog hosts adopt` does, until the watchdog serves
// a proxy on each address.
func (w *Watchdog) served() func(context.Context, []string) error {
	return func(ctx context.Context, listens []string) error {
		deadline := time.Now().Add(20 * time.Second)
		for {
			st, _ := w.status()
			all := true
			for _, l := range listens {
				ok := false
				for _, s := range st.Servers {
					ok = ok || proxyurl.SameListen(s.ProxyListen, l) && s.ProxyServed
				}
				all = all && ok
			}
			if all {
				return nil
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("the watchdog does not serve %v", listens)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
}
