package host

import (
	"path"
	"reflect"
	"strings"
	"testing"
)

// TestDSH pins the DSH profile to the values the watchdog had before they
// moved here: the default config, discovery paths and folders must not
// change with the move.
func TestDSH(t *testing.T) {
	t.Parallel()
	want := Profile{
		Name:       "DSH",
		ClientName: "dsh-mcp-client",
		Logs:       []string{"~/.dsh/logs/*.log"},
		Process:    "dsh",
		Port:       3080,
		Restart:    []string{"dsh", "web"},
		Client: Client{
			Package:     "@deepseek-ai/dsh-mcp-client",
			Entry:       "lib/index.js",
			HostPackage: "@deepseek-ai/dsh",
			BackupDir:   ".dsh/backups/dsh-mcp-client-pre-onerror-fix",
			TriggerDir:  ".dsh/mcp-watchdog/recover",
			BeaconDir:   ".dsh/mcp-watchdog/clients",
		},
		Config: []ConfigFile{{Darwin: ".dsh", Linux: ".dsh", Env: []EnvDir{{Var: "DSH_HOME"}},
			Names: []string{"profiles/*/cordis.yml", "profiles/*/cordis.patch.yml"}}},
		Layout: Layout{
			Plugin:   Plugin{Key: "name", Value: "@deepseek-ai/dsh-mcp-client", Body: "config", NameKey: "serverName"},
			TypeKeys: []string{"transport"},
			URLKeys:  []URLKey{{"url", StreamableHTTP}},
			Commands: []CommandKey{{Key: "command", Args: "args"}},
		},
		Behaviour:       Behaviour{React: map[Answer]Reaction{NotFoundRPC: Stuck, NotFoundText: Stuck, BadRequest: Stuck}, Measured: "0.1.0-rc.8", Stdio: StdioReaction{On: Retries, Measured: "0.1.0-rc.8", Note: "it starts a dead stdio server again by itself within ~1 s"}},
		ReadsConfigLive: true,
	}
	if got := DSH(); !reflect.DeepEqual(got, want) {
		t.Fatalf("DSH() =\n%+v\nwant\n%+v", got, want)
	}
	if got := DSH().Client.ShortName(); got != "dsh-mcp-client" {
		t.Errorf("ShortName() = %q", got)
	}
	if got := Default(); !reflect.DeepEqual(got, want) {
		t.Errorf("Default() is not DSH: %+v", got)
	}
}

func TestLookup(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, want string // want "": not found
	}{
		{"DSH", "DSH"}, {"dsh", "DSH"},
		{"Claude Code", "Claude Code"}, {"claude-code", "Claude Code"}, {"claude_code", "Claude Code"},
		{"vs code", "VS Code"}, {"vscode", "VS Code"}, {"Codex CLI", "Codex CLI"},
		{"", ""}, {"DSH (demo)", ""}, {"some other host", ""}, {"Claude", ""},
	}
	for _, tt := range tests {
		p, ok := Lookup(tt.name)
		if ok != (tt.want != "") || p.Name != tt.want {
			t.Errorf("Lookup(%q) = %q, %v; want %q", tt.name, p.Name, ok, tt.want)
		}
	}
	for _, p := range Profiles() {
		if got, ok := Lookup(p.Name); !ok || !reflect.DeepEqual(got, p) {
			t.Errorf("Lookup(%q) = %+v, %v", p.Name, got, ok)
		}
	}
	if got := Custom("Acme", "acme-client"); got.Name != "Acme" || got.ClientName != "acme-client" || got.Behaviour.HealsAny() || got.Patchable() {
		t.Errorf("Custom = %+v; want an unpatchable host not known to heal", got)
	}
}

// TestProfilesAreFresh: callers edit what they get (config defaults are
// built from it), so no two calls may share a slice.
func TestProfilesAreFresh(t *testing.T) {
	t.Parallel()
	a := Profiles()
	for i := range a {
		if len(a[i].Logs) > 0 {
			a[i].Logs[0] = "changed"
		}
		if len(a[i].Restart) > 0 {
			a[i].Restart[0] = "changed"
		}
	}
	for _, p := range Profiles() {
		for _, s := range append(p.Logs, p.Restart...) {
			if s == "changed" {
				t.Fatalf("%s: Profiles() returned shared slices", p.Name)
			}
		}
	}
}

// TestEveryProfile holds each profile, present and future, to what the
// packages that use it rely on.
func TestEveryProfile(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, p := range Profiles() {
		if p.Name == "" || p.ClientName == "" {
			t.Errorf("%+v: a profile needs a name and its client's name", p)
		}
		// Lookup ignores case: names must differ by more than case.
		if key := strings.ToLower(p.Name); seen[key] {
			t.Errorf("%q: two profiles share a name", p.Name)
		} else {
			seen[key] = true
		}
		if p.Port < 0 || p.Port > 65535 {
			t.Errorf("%s: port %d", p.Name, p.Port)
		}
		checkConfig(t, p)
		c := p.Client
		if c == (Client{}) {
			continue // a host without a client fix
		}
		if c.Package == "" || c.Entry == "" || c.ShortName() == "" {
			t.Errorf("%s: client %+v lacks its package or entry file", p.Name, c)
		}
		// The folders are joined to the home directory: they must stay in it.
		for _, dir := range []string{c.Entry, c.BackupDir, c.TriggerDir, c.BeaconDir} {
			if dir == "" || path.IsAbs(dir) || path.Clean(dir) != dir || dir == ".." || len(dir) > 2 && dir[:3] == "../" {
				t.Errorf("%s: %q must be a clean relative path", p.Name, dir)
			}
		}
	}
}

// checkConfig: a profile says how it acts on a loss, where it keeps its
// servers (clean relative paths with a known extension) and how to find
// them there.
func checkConfig(t *testing.T, p Profile) {
	t.Helper()
	for _, a := range Answers() {
		switch r := p.Behaviour.On(a); r {
		case Unknown, Stuck, Hangs, Reinitializes, Retries:
		default:
			t.Errorf("%s: after %s: %q is not a known reaction", p.Name, a, r)
		}
	}
	if p.Behaviour.Measured == "" && p.Behaviour.Note == "" {
		t.Errorf("%s: a behaviour not measured must say where it comes from (Note)", p.Name)
	}
	if st := p.Behaviour.Stdio; st.Note == "" || st.Measured == "" && st.On != Unknown {
		t.Errorf("%s: its stdio reaction %+v must say what was seen, or that nobody measured it", p.Name, st)
	}
	for _, k := range p.Layout.Commands {
		if k.Key == "" || k.Argv == (k.Args != "") {
			t.Errorf("%s: command key %+v: a key, and either its args' key or Argv", p.Name, k)
		}
	}
	if len(p.Config) == 0 {
		t.Errorf("%s: no config file", p.Name)
	}
	for _, c := range p.Config {
		for _, dir := range []string{c.Darwin, c.Linux} {
			if dir != "" && (path.IsAbs(dir) || path.Clean(dir) != dir || strings.HasPrefix(dir, "..")) {
				t.Errorf("%s: folder %q must be clean and relative to home", p.Name, dir)
			}
		}
		for _, n := range c.Names {
			switch path.Ext(n) {
			case ".json", ".jsonc", ".toml", ".yml", ".yaml":
			default:
				t.Errorf("%s: %q: no known format", p.Name, n)
			}
		}
	}
	l := p.Layout
	if len(l.Tables) == 0 && len(l.Lists) == 0 && l.Plugin.Key == "" {
		t.Errorf("%s: a layout needs tables, lists or a plugin shape", p.Name)
	}
	if len(l.Lists) > 0 && l.NameKey == "" {
		t.Errorf("%s: a layout with lists needs the key that names an entry", p.Name)
	}
	for _, k := range l.URLKeys {
		if k.Key == "" || k.Transport == "" {
			t.Errorf("%s: URL key %+v", p.Name, k)
		}
	}
}
