package adopt

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwatchdog/watchdog/internal/host"
	"github.com/mcpwatchdog/watchdog/internal/host/hostfile"
)

// codexRig is Codex CLI with one stdio server, mem, in its file.
func codexRig(t *testing.T, entry string) (*rig, string, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.toml")
	orig := "model = \"o4\"\n\n[mcp_servers.mem]\n" + entry + "\n"
	if err := os.WriteFile(path, []byte(orig), 0o600); err != nil {
		t.Fatal(err)
	}
	r := newRig(t, host.CodexCLI(), path)
	r.o.Watchdog = fakeWatchdog(t, "exit 0\n")
	return r, path, orig
}

// commandOf is the command of the file's first server.
func commandOf(t *testing.T, path string) string {
	t.Helper()
	ss, err := hostfile.Servers(hostfile.TOML, read(t, path), host.CodexCLI().Layout)
	if err != nil || len(ss) == 0 {
		t.Fatalf("%v %v", ss, err)
	}
	return ss[0].Command
}

// Long: a table of the ways a wrapper goes wrong, each mended by adopt.
// TestAdoptMendsAWrapper: an entry that already names its wrapper is
// never wrapped twice; a wrapper that is gone, or names a watchdog binary
// that is gone, is written again from the record (the host's file
// untouched); `watchdog hosts` facts say stale before and supervised after.
func TestAdoptMendsAWrapper(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		break_ func(t *testing.T, o *Options, wrapper string)
		why    string
	}{
		{"the wrapper was removed", func(t *testing.T, _ *Options, w string) { must(t, os.Remove(w)) }, "its wrapper was gone"},
		{"the watchdog moved", func(t *testing.T, o *Options, _ string) {
			must(t, os.Remove(o.Watchdog))
			o.Watchdog = fakeWatchdog(t, "exit 0\n")
		}, "which is gone"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, path, _ := codexRig(t, `command = "npx"`+"\nargs = [\"-y\", \"mem-mcp\"]")
			if _, err := Adopt(t.Context(), r.o); err != nil {
				t.Fatal(err)
			}
			w, adopted := commandOf(t, path), read(t, path)
			tt.break_(t, &r.o, w)
			if s := Wrappers(r.o.StateDir).Scripts[w]; s.Runs {
				t.Fatalf("the broken wrapper is said to run: %+v", s)
			}
			res, err := Adopt(t.Context(), r.o)
			if err != nil || !res.Changed || res.RestartHost || !strings.Contains(strings.Join(res.Lines, "\n"), tt.why) {
				t.Fatalf("adopt again: %v %+v", err, res)
			}
			if !bytes.Equal(read(t, path), adopted) {
				t.Fatalf("the host's file changed:\n%s", read(t, path))
			}
			if s := Wrappers(r.o.StateDir).Scripts[w]; !s.Runs || s.Watchdog != r.o.Watchdog || s.Command != "npx" {
				t.Fatalf("the mended wrapper: %+v", s)
			}
			agree(t, r.o)
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestAdoptRecoversAWrapperTheRecordLost: with the record gone, an entry
// naming a wrapper of this state directory is taken back from the
// wrapper's own text, never wrapped twice; one whose wrapper is gone too
// is refused, naming the file, the line and what to do.
func TestAdoptRecoversAWrapperTheRecordLost(t *testing.T) {
	t.Parallel()
	r, path, orig := codexRig(t, `command = "npx"`)
	if _, err := Adopt(t.Context(), r.o); err != nil {
		t.Fatal(err)
	}
	w := commandOf(t, path)
	must(t, os.Remove(filepath.Join(r.o.StateDir, RecordFile)))
	if _, err := Adopt(t.Context(), r.o); err != nil || commandOf(t, path) != w {
		t.Fatalf("adopt without the record: %v; command %q", err, commandOf(t, path))
	}
	if _, err := Release(t.Context(), r.o); err != nil || string(read(t, path)) != orig {
		t.Fatalf("release: %v\n%s", err, read(t, path))
	}
	if _, err := Adopt(t.Context(), r.o); err != nil {
		t.Fatal(err)
	}
	must(t, os.Remove(filepath.Join(r.o.StateDir, RecordFile)))
	must(t, os.Remove(commandOf(t, path)))
	r.o.Servers = []string{"mem"}
	_, err := Adopt(t.Context(), r.o)
	if !errors.Is(err, ErrNoServer) || !strings.Contains(err.Error(), path+" line 4") || !strings.Contains(err.Error(), "put the server's own command back") {
		t.Fatalf("adopt of an entry naming a wrapper nobody knows: %v", err)
	}
}

// TestStdioEntriesLeftAlone: an entry that runs `watchdog stdio` itself
// is supervised as it is; one adopt cannot rewrite is named with its file
// and line when asked for by name.
func TestStdioEntriesLeftAlone(t *testing.T) {
	t.Parallel()
	r, path, orig := codexRig(t, `command = "/usr/local/bin/watchdog"`+"\nargs = [\"stdio\", \"--\", \"npx\"]")
	r.o.Servers = []string{"mem"}
	res, err := Adopt(t.Context(), r.o)
	if !errors.Is(err, ErrNoServer) || res.Changed || string(read(t, path)) != orig {
		t.Fatalf("adopt of an entry that runs watchdog stdio: %v %+v", err, res)
	}
	if !strings.Contains(err.Error(), "runs under `watchdog stdio` already") {
		t.Errorf("the refusal does not say why: %v", err)
	}
	path = filepath.Join(t.TempDir(), ".continue", "config.yaml")
	must(t, os.MkdirAll(filepath.Dir(path), 0o700))
	must(t, os.WriteFile(path, []byte("name: a\nmcpServers:\n  - name: mem\n    command: >-\n      npx\n"), 0o600))
	r = newRig(t, host.Continue(), path)
	r.o.Servers = []string{"mem"}
	if _, err := Adopt(t.Context(), r.o); !errors.Is(err, ErrNoServer) || !strings.Contains(err.Error(), path+" line 4") {
		t.Fatalf("adopt of a command in a YAML block: %v", err)
	}
}

// TestTwoScopesTwoWrappers: Claude Code's user and local entries of one
// name, in one file, get a wrapper each.
func TestTwoScopesTwoWrappers(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), ".claude.json")
	orig := `{"mcpServers": {"fs": {"command": "npx"}}, "projects": {"/p": {"mcpServers": {"fs": {"command": "uvx"}}}}}`
	must(t, os.WriteFile(path, []byte(orig), 0o600))
	r := newRig(t, host.ClaudeCode(), path)
	r.o.Watchdog = fakeWatchdog(t, "exit 0\n")
	if _, err := Adopt(t.Context(), r.o); err != nil {
		t.Fatal(err)
	}
	ss, _ := hostfile.Servers(hostfile.JSON, read(t, path), r.o.Host.Layout)
	ws := Wrappers(r.o.StateDir).Scripts
	if len(ss) != 2 || ss[0].Command == ss[1].Command || ws[ss[0].Command].Command != "npx" || ws[ss[1].Command].Command != "uvx" {
		t.Fatalf("two scopes: %q %q; wrappers %v", ss[0].Command, ss[1].Command, ws)
	}
	if _, err := Release(t.Context(), r.o); err != nil || string(read(t, path)) != orig {
		t.Fatalf("release: %v\n%s", err, read(t, path))
	}
}

// TestReleaseKeepsACommandTheUserChanged: a command the user changed
// since adopt is named with its line and left alone, and its record (and
// so its wrapper) kept; --force forgets it.
func TestReleaseKeepsACommandTheUserChanged(t *testing.T) {
	t.Parallel()
	r, path, _ := codexRig(t, `command = "npx"`)
	if _, err := Adopt(t.Context(), r.o); err != nil {
		t.Fatal(err)
	}
	w := commandOf(t, path)
	mine := strings.Replace(string(read(t, path)), w, "bunx", 1)
	must(t, os.WriteFile(path, []byte(mine), 0o600))
	res, err := Release(t.Context(), r.o)
	if err != nil || string(read(t, path)) != mine || !strings.Contains(strings.Join(res.Lines, "\n"), "line 4 was changed since adopt (to bunx)") {
		t.Fatalf("release: %v %+v\n%s", err, res, read(t, path))
	}
	if _, err := os.Stat(w); err != nil {
		t.Fatalf("the wrapper the record keeps is gone: %v", err)
	}
	r.o.Force = true
	if _, err := Release(t.Context(), r.o); err != nil || string(read(t, path)) != mine {
		t.Fatalf("release --force: %v", err)
	}
	if _, err := os.Stat(w); !os.IsNotExist(err) {
		t.Fatalf("the forgotten wrapper is still there: %v", err)
	}
}

// TestReleaseTakesBackAStaleCopy: a host that writes back the copy of
// its file it read before release (naming the removed wrapper again) is
// given its own command back by the next release.
func TestReleaseTakesBackAStaleCopy(t *testing.T) {
	t.Parallel()
	r, path, orig := codexRig(t, `command = "npx"`)
	if _, err := Adopt(t.Context(), r.o); err != nil {
		t.Fatal(err)
	}
	stale := read(t, path)
	if _, err := Release(t.Context(), r.o); err != nil {
		t.Fatal(err)
	}
	must(t, os.WriteFile(path, stale, 0o600))
	res, err := Release(t.Context(), r.o)
	if err != nil || string(read(t, path)) != orig || !strings.Contains(strings.Join(res.Lines, "\n"), "named its wrapper again") {
		t.Fatalf("release of the stale copy: %v %+v\n%s", err, res, read(t, path))
	}
}

// TestReleaseAll: every adopted host is released, its wrapped stdio
// servers with its proxied URLs: each file back byte for byte, no wrapper
// left, nothing in the record.
func TestReleaseAll(t *testing.T) {
	t.Parallel()
	r, codex, codexOrig := codexRig(t, `command = "npx"`+"\n\n[mcp_servers.web]\nurl = \"http://127.0.0.1:14242/mcp\"")
	desktop, desktopOrig := fixture(t, "claude-desktop.json", "claude_desktop_config.json")
	files := map[string][]string{"Codex CLI": {codex}, "Claude Desktop": {desktop}}
	for _, name := range []string{"Codex CLI", "Claude Desktop"} {
		o := r.o
		o.Host, _ = host.Lookup(name)
		o.Files = files[name]
		if _, err := Adopt(t.Context(), o); err != nil {
			t.Fatalf("adopt %s: %v", name, err)
		}
	}
	res, err := ReleaseAll(t.Context(), r.o, func(p host.Profile) []string { return files[p.Name] })
	if err != nil || len(res) != 2 {
		t.Fatalf("release --all: %v %+v", err, res)
	}
	if !bytes.Equal(read(t, codex), []byte(codexOrig)) || !bytes.Equal(read(t, desktop), desktopOrig) {
		t.Fatalf("not given back:\n%s\n%s", read(t, codex), read(t, desktop))
	}
	if left, _ := filepath.Glob(filepath.Join(r.o.StateDir, WrappersDir, "*")); len(left) > 0 {
		t.Fatalf("wrappers left: %v", left)
	}
	if a, _ := Adopted(r.o.StateDir); len(a) != 0 {
		t.Fatalf("still adopted: %v", a)
	}
}
