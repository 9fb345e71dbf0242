package hosts

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mcpwatchdog/watchdog/internal/host"
	"github.com/mcpwatchdog/watchdog/internal/hostconfig"
	"github.com/mcpwatchdog/watchdog/internal/proxyurl"
)

func touch(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestPaths: each system's folder, the folder an environment variable
// names instead, and globs over DSH's profiles.
func TestPaths(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	touch(t, filepath.Join(home, ".config/Code/User/mcp.json"), "{}")
	touch(t, filepath.Join(home, "Library/Application Support/Code/User/mcp.json"), "{}")
	touch(t, filepath.Join(home, ".dsh/profiles/b/cordis.yml"), "[]")
	touch(t, filepath.Join(home, ".dsh/profiles/a/cordis.yml"), "[]")
	touch(t, filepath.Join(home, ".dsh/profiles/a/cordis.patch.yml"), "[]")
	moved := filepath.Join(t.TempDir(), "dshhome")
	touch(t, filepath.Join(moved, "profiles/x/cordis.yml"), "[]")
	env := func(k string) string {
		if k == "DSH_HOME" {
			return moved
		}
		return ""
	}
	tests := []struct {
		p    host.Profile
		goos string
		env  func(string) string
		base string // want is relative to it
		want []string
	}{
		{host.VSCode(), "linux", nil, home, []string{".config/Code/User/mcp.json"}},
		{host.VSCode(), "darwin", nil, home, []string{"Library/Application Support/Code/User/mcp.json"}},
		{host.DSH(), "linux", nil, home, []string{".dsh/profiles/a/cordis.yml", ".dsh/profiles/b/cordis.yml", ".dsh/profiles/a/cordis.patch.yml"}},
		{host.DSH(), "linux", env, moved, []string{"profiles/x/cordis.yml"}},
		{host.Cursor(), "linux", nil, home, nil},
	}
	for _, tt := range tests {
		var want []string
		for _, w := range tt.want {
			want = append(want, filepath.Join(tt.base, filepath.FromSlash(w)))
		}
		if got := Paths(tt.p, Options{Home: home, GOOS: tt.goos, Getenv: tt.env}); !slices.Equal(got, want) {
			t.Errorf("%s on %s: %q, want %q", tt.p.Name, tt.goos, got, want)
		}
	}
}

// TestFind: a host is found by a file or a running process, not
// otherwise; a file that does not parse is reported, not dropped.
func TestFind(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	touch(t, filepath.Join(home, ".cursor/mcp.json"), `{"mcpServers": {"mem": {"url": "http://127.0.0.1:1/mcp"}}}`)
	touch(t, filepath.Join(home, ".gemini/settings.json"), `{"mcpServers": {`)
	running := func(_ context.Context, p host.Profile) (int32, bool) { return 7, p.Name == host.CodexCLI().Name }
	found := Discover(t.Context(), Options{Home: home, GOOS: "linux", Running: running})
	var names []string
	for _, f := range found {
		names = append(names, f.Profile.Name)
	}
	if want := []string{"Cursor", "Codex CLI", "Gemini CLI"}; !slices.Equal(names, want) {
		t.Fatalf("found %v, want %v", names, want)
	}
	if f := found[0]; len(f.Files) != 1 || len(f.Files[0].Servers) != 1 || f.Files[0].Err != nil || f.Running {
		t.Errorf("cursor: %+v", f)
	}
	if f := found[1]; !f.Running || f.PID != 7 || len(f.Files) != 0 {
		t.Errorf("codex: %+v", f)
	}
	if f := found[2]; f.Files[0].Err == nil {
		t.Errorf("gemini's broken file: no error: %+v", f)
	}
}

// Long: a table of cases, one per protection and what decides it.
func TestProtect(t *testing.T) {
	t.Parallel()
	http := func(u string) hostconfig.Server {
		return hostconfig.Server{Name: "mem", Transport: host.StreamableHTTP, URL: u}
	}
	const (
		up     = "http://127.0.0.1:14242/mcp"
		secret = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
		old    = "ZYXWVUTSRQPONMLKJIHGFEDCBA"
	)
	current := proxyurl.For("127.0.0.1:14301", secret)
	served := map[string]Proxy{"127.0.0.1:14301": {Upstream: up, Served: true, URL: current}}
	proxied := Facts{Proxies: served, Daemon: true}
	release := "watchdog hosts release Cursor --server mem"
	tests := []struct {
		name string
		p    host.Profile
		s    hostconfig.Server
		f    Facts
		want Protection
		fix  string
	}{
		{"stdio", host.Cursor(), hostconfig.Server{Name: "x", Transport: host.Stdio}, Facts{}, NotNeeded, ""},
		{"stuck host", host.Cursor(), http(up), Facts{}, Exposed, "watchdog hosts adopt Cursor --server mem"},
		{"stuck host with a space in its name", host.GeminiCLI(), http(up), Facts{}, Exposed, "watchdog hosts adopt 'Gemini CLI' --server mem"},
		{"patchable host", host.DSH(), http(up), Facts{}, Exposed, "watchdog hosts adopt DSH --server mem (or: watchdog patch apply)"},
		{"patched", host.DSH(), http(up), Facts{Patched: true}, Patched, ""},
		{"proxied: served now, the current secret", host.Cursor(), http(current), proxied, Proxied, ""},
		{"proxied, spelt localhost", host.Cursor(), http(proxyurl.For("localhost:14301", secret)), proxied, Proxied, ""},
		{"no watchdog running", host.Cursor(), http(current), Facts{Proxies: served}, ProxyDown,
			"watchdog run (and `watchdog autostart enable` to keep it running), or: " + release},
		{"its port held by another program", host.Cursor(), http(current),
			Facts{Daemon: true, Proxies: map[string]Proxy{"127.0.0.1:14301": {Upstream: up, Problem: "address already in use"}}}, ProxyDown,
			"see `watchdog status`; or: " + release},
		{"an old secret", host.Cursor(), http(proxyurl.For("127.0.0.1:14301", old)), proxied, Stale, "watchdog hosts adopt Cursor --server mem"},
		{"the proxy's port without a secret", host.Cursor(), http("http://127.0.0.1:14301/mcp"), proxied, Stale, "watchdog hosts adopt Cursor --server mem"},
		{"a proxy taken out of the config, known to adopt", host.Cursor(), http(proxyurl.For("127.0.0.1:14302", secret)),
			Facts{Daemon: true, Written: map[string]string{"127.0.0.1:14302": up}}, UnknownProxy, "watchdog hosts adopt Cursor --server mem"},
		{"a proxy nobody knows", host.Cursor(), http(proxyurl.For("127.0.0.1:14303", secret)), proxied, UnknownProxy,
			"put the server's own URL back in the host's file"},
		{"proxied, and the server now signs in with OAuth", host.Cursor(), http(current),
			Facts{Proxies: served, Daemon: true, OAuth: map[string]bool{up: true}}, OAuth, release},
		{"signs in with OAuth (probed)", host.Cursor(), http(up), Facts{OAuth: map[string]bool{up: true}}, OAuth, ""},
		{"signs in with OAuth (its entry's oauth block)", host.Cursor(), hostconfig.Server{Name: "mem", Transport: host.StreamableHTTP, URL: up, OAuth: true},
			Facts{}, OAuth, ""},
		{"a static Authorization header, on an OAuth server", host.Cursor(), hostconfig.Server{Name: "mem", Transport: host.StreamableHTTP, URL: up, StaticAuth: true},
			Facts{OAuth: map[string]bool{up: true}}, Exposed, "watchdog hosts adopt Cursor --server mem"},
		{"OAuth, and the host heals itself", host.ClaudeCode(), http(up), Facts{OAuth: map[string]bool{up: true}}, SelfHealing, ""},
		{"not an http URL", host.Cursor(), http("ws://127.0.0.1:9/mcp"), Facts{}, Exposed, ""},
		{"stateless", host.Cursor(), http(up), Facts{Stateless: map[string]bool{up: true}}, Stateless, ""},
		{"modern-only, a legacy host: needs the bridge", host.Cursor(), http(up), Facts{ModernOnly: map[string]bool{up: true}}, Exposed,
			"watchdog hosts adopt Cursor --server mem"},
		{"modern-only, a host that speaks 2026-07-28", host.ClaudeCode(), http(up), Facts{ModernOnly: map[string]bool{up: true}}, Stateless, ""},
		{"retries", host.CodexCLI(), http(up), Facts{}, SelfHealing, ""},
		{"retries after a 404, and the server answers 404", host.CodexCLI(), http(up), Facts{LostAnswer: map[string]int{up: 404}}, SelfHealing, ""},
		{"retries after a 404 only, and the server answers 400", host.CodexCLI(), http(up), Facts{LostAnswer: map[string]int{up: 400}}, Exposed,
			"watchdog hosts adopt 'Codex CLI' --server mem"},
		{"retries after a 400 too, and the server answers 400", host.ClaudeCode(), http(up), Facts{LostAnswer: map[string]int{up: 400}}, SelfHealing, ""},
		{"reinitializes", host.VSCode(), http(up), Facts{}, SelfHealing, ""},
		{"seen to heal", host.Cursor(), http(up), Facts{SeenSelfHealing: true}, SelfHealing, ""},
		{"bridged", host.ClaudeDesktop(), hostconfig.Server{Name: "mem", Transport: host.Bridged, URL: up}, Facts{}, SelfHealing, ""},
		{"legacy SSE", host.Cursor(), hostconfig.Server{Name: "mem", Transport: host.SSE, URL: up}, Facts{}, Exposed,
			"move the server to Streamable HTTP, then: watchdog hosts adopt Cursor --server mem"},
	}
	for _, tt := range tests {
		v := Protect(tt.p, tt.s, tt.f)
		if v.Protection != tt.want || v.Fix != tt.fix || v.Why == "" {
			t.Errorf("%s: %+v; want %s, fix %q", tt.name, v, tt.want, tt.fix)
		}
		if (tt.want == Proxied || tt.want == Stale) && v.Upstream != up {
			t.Errorf("%s: upstream %q", tt.name, v.Upstream)
		}
	}
}

// TestProjectFiles: the project folders ~/.claude.json lists are looked in
// for a .mcp.json, whose servers are Claude Code's too; Paths, which adopt
// and release go by, lists the same files. A folder with none, and a key
// that is no absolute path, add nothing.
func TestProjectFiles(t *testing.T) {
	t.Parallel()
	home, proj, bare := t.TempDir(), t.TempDir(), t.TempDir()
	touch(t, filepath.Join(home, ".claude.json"), fmt.Sprintf(`{"projects": {%q: {"mcpServers": {}}, %q: {}, "relative/dir": {}}}`, proj, bare))
	touch(t, filepath.Join(proj, ".mcp.json"), `{"mcpServers": {"shared": {"type": "http", "url": "http://127.0.0.1:1/mcp"}}}`)
	p := host.ClaudeCode()
	found := Discover(t.Context(), Options{Home: home, GOOS: "linux", Profiles: []host.Profile{p}})
	if len(found) != 1 || len(found[0].Files) != 2 {
		t.Fatalf("found %+v, want ~/.claude.json and the project's .mcp.json", found)
	}
	if f := found[0].Files[1]; f.Path != filepath.Join(proj, ".mcp.json") || len(f.Servers) != 1 || f.Servers[0].Name != "shared" {
		t.Errorf("the project's file: %+v", f)
	}
	want := []string{filepath.Join(home, ".claude.json"), filepath.Join(proj, ".mcp.json")}
	if got := Paths(p, Options{Home: home, GOOS: "linux"}); !slices.Equal(got, want) {
		t.Errorf("Paths = %q, want %q", got, want)
	}
}
