package hostsview

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpwatchdog/watchdog/internal/host"
	"github.com/mcpwatchdog/watchdog/internal/host/find"
	"github.com/mcpwatchdog/watchdog/internal/host/judge"
)

// everyHost is where each host keeps the fixture of its file on Linux, in
// a home folder: every host the watchdog knows, each as it documents it.
var everyHost = []struct{ fixture, at string }{
	{"dsh-cordis.yml", ".dsh/profiles/main/cordis.yml"},
	{"claude-code.json", ".claude.json"},
	{"claude-desktop.json", ".config/Claude/claude_desktop_config.json"},
	{"cursor.json", ".cursor/mcp.json"},
	{"vscode.json", ".config/Code/User/mcp.json"},
	{"windsurf.json", ".codeium/windsurf/mcp_config.json"},
	{"codex.toml", ".codex/config.toml"},
	{"gemini.json", ".gemini/settings.json"},
	{"copilot-mcp-config.json", ".copilot/mcp-config.json"},
	{"opencode.jsonc", ".config/opencode/opencode.jsonc"},
	{"kilo.jsonc", ".config/kilo/kilo.jsonc"},
	{"cline_mcp_settings.json", ".cline/data/settings/cline_mcp_settings.json"},
	{"qwen-settings.json", ".qwen/settings.json"},
	{"crush.json", ".config/crush/crush.json"},
	{"goose-config.yaml", ".config/goose/config.yaml"},
	{"zed-settings.json", ".config/zed/settings.json"},
	{"continue-config.yaml", ".continue/config.yaml"},
	{"lmstudio-mcp.json", ".lmstudio/mcp.json"},
}

// everyHostHome is a home folder holding every host's file.
func everyHostHome(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	for _, f := range everyHost {
		data, err := os.ReadFile(filepath.Join("..", "host", "hostfile", "testdata", f.fixture))
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(home, filepath.FromSlash(f.at))
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return home
}

// Long: a table of every host, its mem server judged against two answers.
// TestEveryHostListed: `watchdog hosts` on a machine with every host's
// file lists each host, and each host's mem server (one URL for all)
// with the protection its behaviour gives against how that server
// answers a lost session: self-healing only where the host truly heals
// after that answer.
func TestEveryHostListed(t *testing.T) {
	t.Parallel()
	home := everyHostHome(t)
	found := find.Discover(context.Background(), find.Options{Home: home, GOOS: "linux"})
	if len(found) != len(host.Profiles()) {
		var names []string
		for _, f := range found {
			names = append(names, f.Profile.Name)
		}
		t.Fatalf("found %d hosts (%s), want every one of %d", len(found), strings.Join(names, ", "), len(host.Profiles()))
	}
	const mem = "http://127.0.0.1:14242/mcp"
	// heals: the hosts whose mem is self-healing after a plain-text 404,
	// and after the 400 quirk.
	heals := map[host.Answer][]string{
		host.NotFoundText: {"Claude Code", "Codex CLI", "Copilot CLI", "opencode", "Kilo Code", "Qwen Code", "Crush", "VS Code"},
		host.BadRequest:   {"Claude Code", "Qwen Code", "Crush"},
	}
	for answer, want := range heals {
		facts := map[string]judge.Facts{}
		for _, f := range found {
			facts[f.Profile.Name] = judge.Facts{LostAnswer: map[string]host.Answer{mem: answer}}
		}
		doc := Build(found, facts, nil)
		for _, h := range doc.Hosts {
			got := ""
			for _, s := range h.Servers {
				if s.URL == mem && s.Shadowed == "" {
					got = string(s.Protection)
				}
			}
			wantP := string(judge.Exposed)
			if slices.Contains(want, h.Name) {
				wantP = string(judge.SelfHealing)
			}
			if h.Name == "Claude Desktop" {
				wantP = string(judge.SelfHealing) // its mem runs through mcp-remote
			}
			if got != wantP {
				t.Errorf("after %s: %s's mem is %q, want %q", answer, h.Name, got, wantP)
			}
		}
	}
	var text bytes.Buffer
	Build(found, nil, nil).WriteText(&text)
	for _, w := range []string{"Copilot CLI (not running; after a lost session: 404 json-rpc retries, 404 text retries, 400 hangs (measured on 1.0.102))",
		"Goose (", "developer", "not-needed"} {
		if !strings.Contains(text.String(), w) {
			t.Errorf("the listing does not say %q:\n%s", w, text.String())
		}
	}
}
