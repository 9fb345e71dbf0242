package hostfile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpwatchdog/watchdog/internal/host"
)

// fixtures: one file per host (and shape), written from the host's
// documented format, with the servers each holds (name transport url; "-"
// for no URL). as is the path the host keeps it at, which picks its
// layout ("": the fixture's name). syntax is what the host's own parser
// takes: strict JSON, JSON with comments (and trailing commas), YAML or
// TOML; a rewritten file must still be that.
var fixtures = []struct {
	file, host, as string
	syntax         syntax
	want           []string
}{
	{"claude-code.json", "Claude Code", "", strictJSON, []string{
		"mem streamable-http http://127.0.0.1:14242/mcp", "events sse https://events.example.com/sse", "files stdio -",
		"tracker streamable-http http://localhost:8931/mcp?team=a&x=1"}},
	{"claude-desktop.json", "Claude Desktop", "", strictJSON, []string{"filesystem stdio -", "mem stdio-bridge http://127.0.0.1:14242/mcp"}},
	{"cursor.json", "Cursor", "", strictJSON, []string{"mem streamable-http http://127.0.0.1:14242/mcp", "github stdio -",
		"linear streamable-http https://mcp.linear.app/sse"}},
	{"vscode.json", "VS Code", "", jsonc, []string{"mem streamable-http http://127.0.0.1:14242/mcp", "fetch stdio -", "legacy sse http://localhost:9000/sse"}},
	{"copilot-mcp-config.json", "VS Code", ".copilot/mcp-config.json", jsonc, copilotWant},
	{"windsurf.json", "Windsurf", "", strictJSON, []string{"mem streamable-http http://127.0.0.1:14242/mcp", "sequential-thinking stdio -"}},
	{"codex.toml", "Codex CLI", "", tomlSyntax, []string{"mem streamable-http http://127.0.0.1:14242/mcp", "docs stdio -", "tracker streamable-http http://localhost:8931/mcp"}},
	// Gemini tries Streamable HTTP on a url without a type, and SSE only when that fails.
	// What `gemini mcp add -t http` writes: {"url", "type": "http"}, Streamable HTTP.
	{"gemini.json", "Gemini CLI", "", jsonc, []string{"mem streamable-http http://127.0.0.1:14242/mcp", "events streamable-http http://localhost:8080/sse",
		"typed streamable-http http://localhost:7000/mcp", "git stdio -"}},
	{"claude-code-project/.mcp.json", "Claude Code", "", strictJSON, []string{"shared-mem streamable-http http://127.0.0.1:14242/mcp",
		"docs sse https://docs.example.com/sse", "db stdio -"}},
	{"dsh-cordis.yml", "DSH", "", yamlSyntax, []string{"github stdio -", "mem streamable-http http://127.0.0.1:14242/mcp", "web streamable-http http://localhost:3000/mcp"}},
	{"copilot-mcp-config.json", "Copilot CLI", ".copilot/mcp-config.json", jsonc, copilotWant},
	{"opencode.jsonc", "opencode", "", jsonc, []string{"mem streamable-http http://127.0.0.1:14242/mcp", "everything stdio -",
		"tracker streamable-http https://tracker.example.com/mcp"}},
	{"opencode-v2.jsonc", "opencode", "", jsonc, []string{"mem streamable-http http://127.0.0.1:14242/mcp", "fs stdio -"}},
	{"kilo.jsonc", "Kilo Code", "", jsonc, []string{"mem streamable-http http://127.0.0.1:14242/mcp", "gitnexus stdio -"}},
	{"kilocode-mcp_settings.json", "Kilo Code", ".kilocode/cli/global/settings/mcp_settings.json", strictJSON,
		[]string{"mem streamable-http http://127.0.0.1:14242/mcp", "server-name stdio -"}},
	{"cline_mcp_settings.json", "Cline", "", strictJSON, []string{"mem streamable-http http://127.0.0.1:14242/mcp", "local-server stdio -",
		"events sse https://events.example.com/sse", "notes stdio -"}},
	{"cline-extension.json", "Cline", "", strictJSON, []string{"mem streamable-http http://127.0.0.1:14242/mcp", "brave-search stdio -"}},
	// Qwen Code reads url as SSE, httpUrl as Streamable HTTP.
	{"qwen-settings.json", "Qwen Code", "", jsonc, []string{"mem streamable-http http://127.0.0.1:14242/mcp", "events sse http://localhost:8080/sse", "git stdio -"}},
	{"crush.json", "Crush", "", strictJSON, []string{"mem streamable-http http://127.0.0.1:14242/mcp", "filesystem stdio -",
		"streaming-service sse https://example.com/mcp/sse"}},
	{"goose-config.yaml", "Goose", "", yamlSyntax, []string{"developer builtin -", "mem streamable-http http://127.0.0.1:14242/mcp", "github stdio -",
		"events sse https://events.example.com/sse"}},
	{"zed-settings.json", "Zed", "", jsonc, []string{"mem streamable-http http://127.0.0.1:14242/mcp", "local-mcp-server stdio -", "legacy stdio -"}},
	{"continue-config.yaml", "Continue", ".continue/config.yaml", yamlSyntax, []string{"mem streamable-http http://127.0.0.1:14242/mcp", "sqlite stdio -",
		"events sse https://events.example.com/sse"}},
	{"continue-block.yaml", "Continue", ".continue/mcpServers/ha.yaml", yamlSyntax, []string{"home-assistant streamable-http https://homeassistant.local:8123/api/mcp",
		"ha-local stdio -"}},
	{"lmstudio-mcp.json", "LM Studio", "", strictJSON, []string{"hf-mcp-server streamable-http https://huggingface.co/mcp",
		"mem streamable-http http://127.0.0.1:14242/mcp", "fetch stdio -"}},
}

var copilotWant = []string{"mem streamable-http http://127.0.0.1:14242/mcp", "playwright stdio -", "events sse https://events.example.com/sse"}

func load(t *testing.T, file, hostName string, as ...string) (Format, []byte, host.Layout) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	f, err := FormatOf(file)
	if err != nil {
		t.Fatal(err)
	}
	p, ok := host.Lookup(hostName)
	if !ok {
		t.Fatalf("no profile %q", hostName)
	}
	if len(as) > 0 && as[0] != "" {
		return f, data, p.LayoutOf(as[0])
	}
	return f, data, p.LayoutOf(file)
}

func describe(ss []Server) []string {
	var out []string
	for _, s := range ss {
		u := s.URL
		if u == "" {
			u = "-"
		}
		out = append(out, strings.Join([]string{s.Name, string(s.Transport), u}, " "))
	}
	return out
}

func TestServers(t *testing.T) {
	t.Parallel()
	for _, fx := range fixtures {
		t.Run(fx.host+"/"+fx.file, func(t *testing.T) {
			f, data, l := load(t, fx.file, fx.host, fx.as)
			ss, err := Servers(f, data, l)
			if err != nil {
				t.Fatal(err)
			}
			if got := describe(ss); !slices.Equal(got, fx.want) {
				t.Fatalf("servers\n%q\nwant\n%q", got, fx.want)
			}
			for _, s := range ss {
				if s.URL != "" && (!s.Editable || !strings.Contains(s.Literal, s.URL) && !strings.Contains(s.Literal, strings.ReplaceAll(s.URL, "&", `\u0026`))) {
					t.Errorf("%s: literal %q, editable %v, for URL %s", s.Name, s.Literal, s.Editable, s.URL)
				}
			}
		})
	}
}

// proxied is the URL adopt would give each server.
func proxied(s Server) string { return "http://127.0.0.1:14300/S3cr3t/" + s.Name + "/mcp" }

// adoptAll rewrites every HTTP server's URL to proxied.
func adoptAll(t *testing.T, f Format, data []byte, l host.Layout) ([]byte, []Server) {
	t.Helper()
	ss, err := Servers(f, data, l)
	if err != nil {
		t.Fatal(err)
	}
	var edits []Edit
	var adopted []Server
	for _, s := range ss {
		if s.Proxyable() {
			edits = append(edits, Edit{Path: s.Path, From: s.URL, To: proxied(s)})
			adopted = append(adopted, s)
		}
	}
	out, err := Rewrite(f, data, l, edits)
	if err != nil {
		t.Fatal(err)
	}
	return out, adopted
}

// release puts back each adopted server's literal.
func release(f Format, data []byte, l host.Layout, adopted []Server) ([]byte, error) {
	var edits []Edit
	for _, s := range adopted {
		edits = append(edits, Edit{Path: s.Path, From: proxied(s), To: s.URL, Literal: s.Literal})
	}
	return Rewrite(f, data, l, edits)
}

// TestAdoptRelease: adopting every HTTP server changes only their URLs'
// bytes, the servers read back with the new URLs, and releasing gives the
// file back byte for byte.
func TestAdoptRelease(t *testing.T) {
	t.Parallel()
	for _, fx := range fixtures {
		t.Run(fx.host+"/"+fx.file, func(t *testing.T) {
			f, data, l := load(t, fx.file, fx.host, fx.as)
			out, adopted := adoptAll(t, f, data, l)
			if len(adopted) == 0 {
				t.Fatal("nothing to adopt")
			}
			checkOnlyURLsChanged(t, data, out, adopted)
			if err := fx.syntax.check(data); err != nil {
				t.Fatalf("the fixture itself is not what its host reads: %v", err)
			}
			if err := fx.syntax.check(out); err != nil {
				t.Fatalf("adopted, the file no longer parses as its host reads it: %v\n%s", err, out)
			}
			after, err := Servers(f, out, l)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range adopted {
				i := slices.IndexFunc(after, func(a Server) bool { return slices.Equal(a.Path, s.Path) })
				if i < 0 || after[i].URL != proxied(s) || after[i].Transport != s.Transport {
					t.Fatalf("%s after adopt: %+v", s.Name, after)
				}
			}
			back, err := release(f, out, l, adopted)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(back, data) {
				t.Fatalf("released file differs from the original:\n%s", back)
			}
		})
	}
}

// checkOnlyURLsChanged: out is data with each adopted literal replaced,
// nothing else: the bytes outside the literals match in order.
func checkOnlyURLsChanged(t *testing.T, data, out []byte, adopted []Server) {
	t.Helper()
	rest := string(data)
	for _, s := range adopted {
		rest = strings.Replace(rest, s.Literal, "\x00", 1)
	}
	pieces := strings.Split(rest, "\x00")
	got := string(out)
	for _, p := range pieces {
		i := strings.Index(got, p)
		if i < 0 {
			t.Fatalf("bytes outside the URLs changed: %q is gone from\n%s", p, out)
		}
		got = got[i+len(p):]
	}
}

// TestRewriteRefusesAChangedValue: a URL that no longer holds what it was
// read with is not rewritten, and nothing is returned to write.
func TestRewriteRefusesAChangedValue(t *testing.T) {
	t.Parallel()
	for _, fx := range fixtures {
		t.Run(fx.host+"/"+fx.file, func(t *testing.T) {
			f, data, l := load(t, fx.file, fx.host, fx.as)
			out, adopted := adoptAll(t, f, data, l)
			// The user points the first adopted server elsewhere.
			s := adopted[0]
			edited, err := Rewrite(f, out, l, []Edit{{Path: s.Path, From: proxied(s), To: "http://127.0.0.1:9/elsewhere"}})
			if err != nil {
				t.Fatal(err)
			}
			got, err := release(f, edited, l, adopted)
			if !errors.Is(err, ErrChanged) || got != nil {
				t.Fatalf("release of an edited file: %v, %d bytes; want ErrChanged and nothing", err, len(got))
			}
			if !strings.Contains(err.Error(), strings.Join(s.Path, ".")) {
				t.Errorf("error %q does not say which value changed", err)
			}
		})
	}
}

func TestFormatOf(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]Format{"a.json": JSON, "b.JSON": JSON, "c.toml": TOML, "d.yml": YAML, "e.yaml": YAML} {
		if got, err := FormatOf(name); err != nil || got != want {
			t.Errorf("FormatOf(%q) = %q, %v", name, got, err)
		}
	}
	if _, err := FormatOf("mcp.ini"); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "mcp.ini") {
		t.Errorf("FormatOf(mcp.ini): %v", err)
	}
}

func TestSyntaxErrors(t *testing.T) {
	t.Parallel()
	l := host.Layout{Tables: [][]string{{"mcpServers"}}, URLKeys: []host.URLKey{{Key: "url", Transport: host.StreamableHTTP}}}
	for f, data := range map[Format]string{JSON: `{"mcpServers": {`, TOML: "[mcp_servers\nurl=", YAML: "a: [b"} {
		if _, err := Servers(f, []byte(data), l); !errors.Is(err, ErrSyntax) {
			t.Errorf("%s: %v, want ErrSyntax", f, err)
		}
	}
}

// TestProjects: Claude Code's file lists its projects' folders (where each
// may keep a .mcp.json); a host whose layout names none lists nothing.
func TestProjects(t *testing.T) {
	t.Parallel()
	f, data, l := load(t, "claude-code.json", "Claude Code")
	got, err := Projects(f, data, l)
	if err != nil || !slices.Equal(got, []string{"~/projects/app", "~/other"}) {
		t.Fatalf("projects %q, %v", got, err)
	}
	f, data, l = load(t, "cursor.json", "Cursor")
	if got, err := Projects(f, data, l); err != nil || got != nil {
		t.Fatalf("Cursor's projects %q, %v; want none", got, err)
	}
}
