package tsserver

import (
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/testbed/repo"
)

// fakeRoot builds a repo root whose testdata/tsservers pins sdk 1.32.2 and, when
// installed is not empty, has that sdk version in node_modules.
func fakeRoot(t *testing.T, installed string) string {
	t.Helper()
	root := t.TempDir()
	dir := serverDir(root)
	write(t, filepath.Join(dir, "package.json"), `{"dependencies":{"@modelcontextprotocol/sdk":"1.32.2"}}`)
	if installed != "" {
		write(t, filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk", "package.json"),
			`{"name":"@modelcontextprotocol/sdk","version":"`+installed+`"}`)
	}
	return root
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestCheckDeps(t *testing.T) {
	t.Parallel()
	found := func(string) (string, error) { return "/usr/bin/node", nil }
	missing := func(string) (string, error) { return "", errors.New("not found") }
	tests := []struct {
		name      string
		installed string
		lookPath  func(string) (string, error)
		wantErr   string // "" means no error
	}{
		{"installed", "1.32.2", found, ""},
		{"no node", "1.32.2", missing, "node not found"},
		{"no node_modules", "", found, "is not installed"},
		{"other version", "1.31.0", found, "1.31.0 installed, package.json pins 1.32.2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			node, err := checkDeps(fakeRoot(t, tc.installed), tc.lookPath)
			if tc.wantErr == "" {
				if err != nil || node != "/usr/bin/node" {
					t.Fatalf("checkDeps = %q, %v; want /usr/bin/node", node, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("checkDeps succeeded, want error containing %q", tc.wantErr)
			}
			msg := err.Error()
			if !errors.Is(err, ErrMissingDeps) || !strings.Contains(msg, tc.wantErr) || !strings.Contains(msg, "make deps") {
				t.Fatalf("error %q: want ErrMissingDeps naming %q and `make deps`", msg, tc.wantErr)
			}
		})
	}
}

// TestRealDepsInstalled checks this checkout: the pinned SDK is what npm ci installed.
func TestRealDepsInstalled(t *testing.T) {
	t.Parallel()
	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := checkDeps(root, nil); err != nil {
		t.Fatal(err)
	}
}

func TestOptionsArgs(t *testing.T) {
	t.Parallel()
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		opts Options
		want string // "" means an error
	}{
		{Options{}, "server.mjs --mode stateful --port 0 --idle-ms 0"},
		{Options{Mode: Quirk, IdleTimeout: 1500 * time.Microsecond, Port: 8080, JSONResponse: true},
			"server.mjs --mode quirk --port 8080 --idle-ms 2 --json-response"},
		{Options{Mode: Stateless, IdleTimeout: 3 * time.Second}, "server.mjs --mode stateless --port 0 --idle-ms 3000"},
		{Options{LogPath: "/l/server.log", StorePath: "/s/mcp-sessions.json"},
			"server.mjs --mode stateful --port 0 --idle-ms 0 --log /l/server.log --store /s/mcp-sessions.json"},
		{Options{StorePath: "rel/store.json"},
			"server.mjs --mode stateful --port 0 --idle-ms 0 --store " + filepath.Join(cwd, "rel", "store.json")},
		{Options{Mode: "lazy"}, ""},
		{Options{IdleTimeout: -time.Second}, ""},
		{Options{Port: 70000}, ""},
	}
	for _, tc := range tests {
		args, err := tc.opts.args()
		got := strings.Join(args, " ")
		if (err != nil) != (tc.want == "") || got != tc.want {
			t.Errorf("%+v: args %q, err %v; want %q", tc.opts, got, err, tc.want)
		}
	}
}

func portOf(t *testing.T, raw string) int {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	p, err := strconv.Atoi(u.Port())
	if err != nil {
		t.Fatal(err)
	}
	return p
}
