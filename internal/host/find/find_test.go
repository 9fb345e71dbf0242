package find

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpwatchdog/watchdog/internal/fsutil"
	"github.com/mcpwatchdog/watchdog/internal/host"
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

// A directory where a host's file should be is listed, with an error that
// says so: not left out, which left adopt saying only "no such server".
func TestDirectoryWhereAFileShouldBe(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	path := filepath.Join(home, ".cursor", "mcp.json")
	if err := os.MkdirAll(path, 0o700); err != nil {
		t.Fatal(err)
	}
	files := Files(host.Cursor(), Options{Home: home, GOOS: "linux"})
	if len(files) != 1 || files[0].Path != path || files[0].Err == nil {
		t.Fatalf("files: %+v; want %s with an error", files, path)
	}
	if err := files[0].Err; !errors.Is(err, fsutil.ErrNotRegular) || !strings.Contains(err.Error(), "directory") {
		t.Fatalf("%v; want it to say %s is a directory", err, path)
	}
}
