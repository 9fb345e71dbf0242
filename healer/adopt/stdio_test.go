package adopt

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/pelletier/go-toml/v2"
	"github.com/tailscale/hujson"
	"gopkg.in/yaml.v3"

	"github.com/mcpwatchdog/watchdog/internal/host"
	"github.com/mcpwatchdog/watchdog/internal/host/hostfile"
)

// hostFixtures are every host's fixtures (each has stdio entries too),
// where each host keeps its file.
var hostFixtures = []struct{ fixture, as, host string }{
	{"claude-code.json", ".claude.json", "Claude Code"}, {"claude-desktop.json", "claude_desktop_config.json", "Claude Desktop"},
	{"cursor.json", "mcp.json", "Cursor"}, {"vscode.json", "mcp.json", "VS Code"}, {"windsurf.json", "mcp_config.json", "Windsurf"},
	{"codex.toml", "config.toml", "Codex CLI"}, {"gemini.json", "settings.json", "Gemini CLI"}, {"dsh-cordis.yml", "cordis.yml", "DSH"},
	{"claude-code-project/.mcp.json", ".mcp.json", "Claude Code"},
	{"copilot-mcp-config.json", ".copilot/mcp-config.json", "Copilot CLI"}, {"copilot-mcp-config.json", ".copilot/mcp-config.json", "VS Code"},
	{"opencode.jsonc", "opencode.jsonc", "opencode"}, {"opencode-v2.jsonc", "opencode.jsonc", "opencode"},
	{"kilo.jsonc", "kilo.jsonc", "Kilo Code"}, {"kilocode-mcp_settings.json", ".kilocode/cli/global/settings/mcp_settings.json", "Kilo Code"},
	{"cline_mcp_settings.json", "cline_mcp_settings.json", "Cline"}, {"cline-extension.json", "cline_mcp_settings.json", "Cline"},
	{"qwen-settings.json", ".qwen/settings.json", "Qwen Code"}, {"crush.json", "crush.json", "Crush"},
	{"goose-config.yaml", "config.yaml", "Goose"}, {"zed-settings.json", "settings.json", "Zed"},
	{"continue-config.yaml", ".continue/config.yaml", "Continue"}, {"continue-block.yaml", ".continue/mcpServers/ha.yaml", "Continue"},
	{"lmstudio-mcp.json", "mcp.json", "LM Studio"},
}

// fakeWatchdog is an executable standing in for the watchdog binary,
// in a folder whose name holds a space and a quote.
func fakeWatchdog(t *testing.T, body string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "opt/it's watch dog")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "watchdog")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestAdoptWrapsEveryHostsStdioServers: in every host's fixture, adopt
// points each stdio entry's command (and nothing else of it) at a wrapper
// of its own, which falls back to the entry's command; the file still
// parses as its host reads it; adopting again changes nothing; release
// gives the file back byte for byte and removes the wrappers.
func TestAdoptWrapsEveryHostsStdioServers(t *testing.T) {
	t.Parallel()
	for _, tt := range hostFixtures {
		t.Run(tt.host+"/"+tt.fixture, func(t *testing.T) {
			t.Parallel()
			p, _ := host.Lookup(tt.host)
			path, orig := fixture(t, tt.fixture, tt.as)
			r := newRig(t, p, path)
			r.o.Watchdog = fakeWatchdog(t, "exit 0\n")
			if _, err := Adopt(t.Context(), r.o); err != nil {
				t.Fatalf("adopt: %v", err)
			}
			checkWrapped(t, r.o, path, orig)
			adopted := read(t, path)
			if res, err := Adopt(t.Context(), r.o); err != nil || res.Changed {
				t.Fatalf("adopt again: %v %+v", err, res)
			}
			if _, err := Release(t.Context(), r.o); err != nil {
				t.Fatalf("release: %v", err)
			}
			if got := read(t, path); !bytes.Equal(got, orig) {
				t.Fatalf("released file differs:\n%s\nadopted it was:\n%s", got, adopted)
			}
			if left, _ := filepath.Glob(filepath.Join(r.o.StateDir, WrappersDir, "*")); len(left) > 0 {
				t.Fatalf("wrappers left after release: %v", left)
			}
		})
	}
}

// checkWrapped: each stdio entry of orig names a wrapper in the state
// directory, one per entry, that falls back to its own command; its
// arguments are as they were; the file parses as its host reads it.
func checkWrapped(t *testing.T, o Options, path string, orig []byte) {
	t.Helper()
	now := read(t, path)
	if err := parsesAsBefore(path, orig, now); err != nil {
		t.Fatalf("adopted, the file no longer parses as its host reads it: %v\n%s", err, now)
	}
	f, _ := hostfile.FormatOf(path)
	before, _ := hostfile.Servers(f, orig, o.Host.LayoutOf(path))
	after, err := hostfile.Servers(f, now, o.Host.LayoutOf(path))
	if err != nil || len(after) != len(before) {
		t.Fatalf("servers after adopt: %v %v", after, err)
	}
	seen := map[string]bool{}
	for i, s := range before {
		a := after[i]
		if s.Transport != host.Stdio {
			continue
		}
		_, back, ok := parseWrapper(read(t, a.Command))
		if !ok || back != s.Command || seen[a.Command] || !inWrappers(o.StateDir, a.Command) || !slices.Equal(a.Args, s.Args) {
			t.Errorf("%s: command %q (args %q), falling back to %q; want a wrapper of its own for %q %q", s.Name, a.Command, a.Args, back, s.Command, s.Args)
		}
		seen[a.Command] = true
	}
	if len(seen) == 0 {
		t.Fatal("no stdio entry was wrapped")
	}
	agree(t, o)
}

// parsesAsBefore: now parses as orig did, by the strictest parser of its
// format that takes orig.
func parsesAsBefore(path string, orig, now []byte) error {
	var v any
	switch ext := filepath.Ext(path); {
	case ext == ".toml":
		return toml.Unmarshal(now, &v)
	case ext == ".yml" || ext == ".yaml":
		return yaml.Unmarshal(now, &v)
	case json.Valid(orig):
		return json.Unmarshal(now, &v)
	}
	std, err := hujson.Standardize(bytes.Clone(now))
	if err != nil {
		return err
	}
	return json.Unmarshal(std, &v)
}

// TestStdioAloneNeedsNoConfig: a host whose only servers are stdio gets
// its wrappers and no watchdog config of its own; --server picks one.
func TestStdioAloneNeedsNoConfig(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "claude_desktop_config.json")
	orig := `{"mcpServers": {"fs": {"command": "npx", "args": ["-y", "fs"]}, "git": {"command": "uvx", "args": ["mcp-server-git"]}}}`
	if err := os.WriteFile(path, []byte(orig), 0o600); err != nil {
		t.Fatal(err)
	}
	r := newRig(t, host.ClaudeDesktop(), path)
	r.o.Watchdog, r.o.Servers = fakeWatchdog(t, "exit 0\n"), []string{"git"}
	res, err := Adopt(t.Context(), r.o)
	if err != nil || !res.Changed || !res.RestartHost {
		t.Fatalf("adopt: %v %+v", err, res)
	}
	if _, err := os.Stat(r.o.ConfigPath); !os.IsNotExist(err) {
		t.Fatalf("adopt made a watchdog config for stdio servers alone: %v", err)
	}
	ss, _ := hostfile.Servers(hostfile.JSON, read(t, path), r.o.Host.Layout)
	if ss[0].Command != "npx" || !inWrappers(r.o.StateDir, ss[1].Command) {
		t.Fatalf("--server git: %q and %q", ss[0].Command, ss[1].Command)
	}
	if a, _ := Adopted(r.o.StateDir); !slices.Equal(a["Claude Desktop"], []string{"git"}) {
		t.Fatalf("adopted %v", a)
	}
	if _, err := Release(t.Context(), r.o); err != nil || string(read(t, path)) != orig {
		t.Fatalf("release: %v\n%s", err, read(t, path))
	}
}
