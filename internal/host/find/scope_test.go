package find

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpwatchdog/watchdog/internal/host"
)

// scoped lists a host's servers as "scope name url", and notes what
// shadows or ignores each.
func scoped(fd Found) []string {
	var out []string
	for _, f := range fd.Files {
		for _, s := range f.Servers {
			line := f.ScopeOf(fd.Profile, s).String() + " " + s.Name + " " + s.URL
			if f.Ignored != "" {
				line += " (ignored)"
			}
			if by := fd.ShadowedBy(f, s); by != "" {
				line += " (not used in " + by + ")"
			}
			out = append(out, line)
		}
	}
	return out
}

// notIn is the note ShadowedBy makes of scopes, in its order.
func notIn(scopes ...string) string {
	slices.Sort(scopes)
	return " (not used in " + strings.Join(scopes, ", ") + ")"
}

func one(t *testing.T, o Options, p host.Profile) Found {
	t.Helper()
	o.Profiles = []host.Profile{p}
	found := Discover(t.Context(), o)
	if len(found) != 1 {
		t.Fatalf("found %+v", found)
	}
	return found[0]
}

// Measured: `gemini mcp add` writes the project's .gemini/settings.json
// by default, which was never read, so hosts judged the user's entry while
// the host used the project's. Now the folders Gemini has run in
// (projects.json) and trusts (trustedFolders.json) are looked in; a
// trusted project's entry wins over the user's of the same name there; an
// untrusted folder's file is read but said to be ignored.
func TestGeminiProjectScopes(t *testing.T) {
	t.Parallel()
	home, trusted, distrusted, parent := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
	child := filepath.Join(parent, "repo")
	srv := func(port int) string {
		return fmt.Sprintf(`{"mcpServers": {"mem": {"url": "http://127.0.0.1:%d/mcp", "type": "http"}}}`, port)
	}
	touch(t, filepath.Join(home, ".gemini/settings.json"), srv(1))
	touch(t, filepath.Join(trusted, ".gemini/settings.json"), srv(2))
	touch(t, filepath.Join(distrusted, ".gemini/settings.json"), srv(3))
	touch(t, filepath.Join(child, ".gemini/settings.json"), srv(4))
	touch(t, filepath.Join(home, ".gemini/projects.json"), fmt.Sprintf(`{"projects": {%q: "a", %q: "b"}}`, trusted, child))
	touch(t, filepath.Join(home, ".gemini/trustedFolders.json"),
		fmt.Sprintf(`{%q: "TRUST_FOLDER", %q: "DO_NOT_TRUST", %q: "TRUST_PARENT"}`, trusted, distrusted, child))
	got := scoped(one(t, Options{Home: home, GOOS: "linux"}, host.GeminiCLI()))
	want := []string{
		"user mem http://127.0.0.1:1/mcp" + notIn("project "+child, "project "+trusted),
		"project " + distrusted + " mem http://127.0.0.1:3/mcp (ignored)",
		"project " + child + " mem http://127.0.0.1:4/mcp",
		"project " + trusted + " mem http://127.0.0.1:2/mcp",
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("scopes\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The distrusted folder's file is the current directory's here: still
	// listed, still ignored, and trusted when the environment says so.
	fd := one(t, Options{Home: home, GOOS: "linux", Projects: []string{distrusted},
		Getenv: func(k string) string { return map[string]string{"GEMINI_CLI_TRUST_WORKSPACE": "true"}[k] }}, host.GeminiCLI())
	for _, line := range scoped(fd) {
		if strings.Contains(line, "(ignored)") {
			t.Errorf("GEMINI_CLI_TRUST_WORKSPACE=true, still ignored: %s", line)
		}
	}
}

// Claude Code: a project's entries in ~/.claude.json (local) win over
// its .mcp.json (project), which wins over the user's, in that folder.
func TestClaudeCodeScopes(t *testing.T) {
	t.Parallel()
	home, proj := t.TempDir(), t.TempDir()
	touch(t, filepath.Join(home, ".claude.json"), fmt.Sprintf(`{"mcpServers": {"mem": {"type": "http", "url": "http://127.0.0.1:1/mcp"}},
		"projects": {%q: {"mcpServers": {"mem": {"type": "http", "url": "http://127.0.0.1:3/mcp"}}}}}`, proj))
	touch(t, filepath.Join(proj, ".mcp.json"), `{"mcpServers": {"mem": {"type": "http", "url": "http://127.0.0.1:2/mcp"}}}`)
	got := scoped(one(t, Options{Home: home, GOOS: "linux"}, host.ClaudeCode()))
	want := []string{
		"user mem http://127.0.0.1:1/mcp (not used in local " + proj + ", project " + proj + ")",
		"local " + proj + " mem http://127.0.0.1:3/mcp",
		"project " + proj + " mem http://127.0.0.1:2/mcp (not used in local " + proj + ")",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("scopes\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Cursor's and VS Code's project files are found in the folders their
// workspace storage names, in the current directory, and in --project.
func TestEditorProjectScopes(t *testing.T) {
	t.Parallel()
	home, opened, cwd := t.TempDir(), t.TempDir(), t.TempDir()
	for _, tt := range []struct {
		p               host.Profile
		storage, name   string
		userFile, entry string
	}{
		{host.Cursor(), ".config/Cursor/User/workspaceStorage", ".cursor/mcp.json", ".cursor/mcp.json", `{"mcpServers": {"a": {"url": "http://127.0.0.1:%d/mcp"}}}`},
		{host.VSCode(), ".config/Code/User/workspaceStorage", ".vscode/mcp.json", ".config/Code/User/mcp.json", `{"servers": {"a": {"type": "http", "url": "http://127.0.0.1:%d/mcp"}}}`},
	} {
		touch(t, filepath.Join(home, tt.userFile), fmt.Sprintf(tt.entry, 1))
		touch(t, filepath.Join(home, tt.storage, "0123abcd/workspace.json"), fmt.Sprintf(`{"folder": "file://%s"}`, opened))
		touch(t, filepath.Join(opened, tt.name), fmt.Sprintf(tt.entry, 2))
		touch(t, filepath.Join(cwd, tt.name), fmt.Sprintf(tt.entry, 3))
		got := scoped(one(t, Options{Home: home, GOOS: "linux", Projects: []string{cwd}}, tt.p))
		want := []string{"user a http://127.0.0.1:1/mcp" + notIn("project "+cwd, "project "+opened),
			"project " + cwd + " a http://127.0.0.1:3/mcp", "project " + opened + " a http://127.0.0.1:2/mcp"}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s scopes\n%s\nwant\n%s", tt.p.Name, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}
