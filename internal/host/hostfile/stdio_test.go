package hostfile

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/mcpwatchdog/watchdog/internal/host"
)

// commands are the stdio entries of each fixture ("host/file" as the
// fixtures name them): name, command and arguments, space-separated.
// Every host that runs stdio servers has at least one in its fixture.
var commands = map[string][]string{
	"Claude Code/claude-code.json":              {"files npx -y @modelcontextprotocol/server-filesystem ~/notes"},
	"Claude Desktop/claude-desktop.json":        {"filesystem npx -y @modelcontextprotocol/server-filesystem ~/Desktop"},
	"Cursor/cursor.json":                        {"github docker run -i --rm ghcr.io/github/github-mcp-server"},
	"VS Code/vscode.json":                       {"fetch uvx mcp-server-fetch"},
	"VS Code/copilot-mcp-config.json":           {"playwright npx @playwright/mcp@latest"},
	"Windsurf/windsurf.json":                    {"sequential-thinking npx -y @modelcontextprotocol/server-sequential-thinking"},
	"Codex CLI/codex.toml":                      {"docs npx -y @upstash/context7-mcp"},
	"Gemini CLI/gemini.json":                    {"git uvx mcp-server-git"},
	"Claude Code/claude-code-project/.mcp.json": {"db npx -y @bytebase/dbhub"},
	"DSH/dsh-cordis.yml":                        {"github npx -y @modelcontextprotocol/server-github"},
	"Copilot CLI/copilot-mcp-config.json":       {"playwright npx @playwright/mcp@latest"},
	"opencode/opencode.jsonc":                   {"everything npx -y @modelcontextprotocol/server-everything"},
	"opencode/opencode-v2.jsonc":                {"fs mcp-fs --root ~/Документы"},
	"Kilo Code/kilo.jsonc":                      {"gitnexus npx -y gitnexus@latest mcp"},
	"Kilo Code/kilocode-mcp_settings.json":      {"server-name node /path/to/server.js"},
	"Cline/cline_mcp_settings.json":             {"local-server node /path/to/server.js", "notes /opt/notes mcp/bin/notes-mcp --vault ~/Notes"},
	"Cline/cline-extension.json":                {"brave-search npx -y @modelcontextprotocol/server-brave-search"},
	"Qwen Code/qwen-settings.json":              {"git uvx mcp-server-git"},
	"Crush/crush.json":                          {"filesystem node /path/to/mcp-server.js"},
	"Goose/goose-config.yaml":                   {"github npx -y @modelcontextprotocol/server-github"},
	"Zed/zed-settings.json":                     {"local-mcp-server some-command arg-1 arg-2", "legacy mcp-fs --root /tmp/Ωmega"},
	"Continue/continue-config.yaml":             {"sqlite npx -y mcp-sqlite /path/to/your/database.db"},
	"Continue/continue-block.yaml":              {"ha-local /opt/home assistant/bin/ha-mcp --token-env HOMEASSISTANT_TOKEN"},
	"LM Studio/lmstudio-mcp.json":               {"fetch uvx mcp-server-fetch --user-agent Ünïcødé/1.0"},
}

// wrapper is the command adopt would give each stdio entry.
func wrapper(s Server) string { return "/home/u/.local/state/mcp-watchdog/wrappers/" + s.Name + " x" }

// TestStdioCommands: every fixture's stdio entries read with their
// command, arguments, and the command's place; rewriting each command to
// a wrapper's path changes only its bytes, the file still parses as its
// host reads it, the entry keeps its arguments, and putting the literals
// back gives the file back byte for byte.
func TestStdioCommands(t *testing.T) {
	t.Parallel()
	for _, fx := range fixtures {
		t.Run(fx.host+"/"+fx.file, func(t *testing.T) {
			want, ok := commands[fx.host+"/"+fx.file]
			if !ok {
				t.Fatal("no row in the table of stdio commands")
			}
			f, data, l := load(t, fx.file, fx.host, fx.as)
			ss, err := Servers(f, data, l)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			var edits, back []Edit
			for _, s := range ss {
				if s.Transport != "stdio" {
					continue
				}
				got = append(got, strings.Join(append([]string{s.Name, s.Command}, s.Args...), " "))
				if !s.CommandEditable || s.CommandLine == 0 || !strings.Contains(s.CommandLiteral, s.Command) {
					t.Errorf("%s: literal %q, editable %v, line %d", s.Name, s.CommandLiteral, s.CommandEditable, s.CommandLine)
				}
				edits = append(edits, Edit{Path: s.CommandPath, From: s.Command, To: wrapper(s)})
				back = append(back, Edit{Path: s.CommandPath, From: wrapper(s), To: s.Command, Literal: s.CommandLiteral})
			}
			if !slices.Equal(got, want) {
				t.Fatalf("stdio entries\n%q\nwant\n%q", got, want)
			}
			if len(edits) == 0 {
				return
			}
			out, err := Rewrite(f, data, l, edits)
			if err != nil {
				t.Fatal(err)
			}
			checkWrapped(t, fx.syntax, f, out, ss, l)
			again, err := Rewrite(f, out, l, back)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(again, data) {
				t.Fatalf("the commands put back differ from the original:\n%s", again)
			}
		})
	}
}

// checkWrapped: out parses as its host reads it, and each stdio entry of
// before now names its wrapper, with its arguments as they were.
func checkWrapped(t *testing.T, sx syntax, f Format, out []byte, before []Server, l host.Layout) {
	t.Helper()
	if err := sx.check(out); err != nil {
		t.Fatalf("wrapped, the file no longer parses as its host reads it: %v\n%s", err, out)
	}
	after, err := Servers(f, out, l)
	if err != nil || len(after) != len(before) {
		t.Fatalf("servers after the rewrite: %v %v", after, err)
	}
	for i, s := range before {
		a := after[i]
		wantCmd := s.Command
		if s.Transport == "stdio" {
			wantCmd = wrapper(s)
		}
		if a.Command != wantCmd || !slices.Equal(a.Args, s.Args) || a.Transport != s.Transport || a.URL != s.URL {
			t.Errorf("%s after the rewrite: %q %q %s %s; want %q %q", s.Name, a.Command, a.Args, a.Transport, a.URL, wantCmd, s.Args)
		}
	}
}

// A command changed since it was read is not rewritten.
func TestRewriteRefusesAChangedCommand(t *testing.T) {
	t.Parallel()
	f, data, l := load(t, "codex.toml", "Codex CLI")
	ss, err := Servers(f, data, l)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(ss, func(s Server) bool { return s.Name == "docs" })
	got, err := Rewrite(f, data, l, []Edit{{Path: ss[i].CommandPath, From: "bunx", To: "/w"}})
	if !errors.Is(err, ErrChanged) || got != nil {
		t.Fatalf("a command that is not what was read: %v, %d bytes", err, len(got))
	}
}
