package config

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestResolveStateDir(t *testing.T) {
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	xdg := testEnv(map[string]string{"XDG_STATE_HOME": "/xdg/state", "D": "/from/var"})
	relXDG := testEnv(map[string]string{"XDG_STATE_HOME": "relative/state"})
	tests := []struct {
		name                string
		flag, env, fromConf string
		goos                string
		e                   environ
		want                string
		wantErr             bool
	}{
		{name: "flag wins", flag: "/f", env: "/e", fromConf: "/c", goos: "linux", e: xdg, want: "/f"},
		{name: "env next", env: "/e", fromConf: "/c", goos: "linux", e: xdg, want: "/e"},
		{name: "config next", fromConf: "/c", goos: "linux", e: xdg, want: "/c"},
		{name: "xdg default", goos: "linux", e: xdg, want: "/xdg/state/mcp-watchdog"},
		{name: "relative xdg ignored", goos: "linux", e: relXDG, want: testHome + "/.local/state/mcp-watchdog"},
		{name: "no xdg", goos: "linux", e: testEnv(nil), want: testHome + "/.local/state/mcp-watchdog"},
		{name: "macOS ignores xdg", goos: "darwin", e: xdg, want: testHome + "/Library/Application Support/mcp-watchdog"},
		{name: "tilde in flag", flag: "~/st", goos: "linux", e: xdg, want: testHome + "/st"},
		{name: "var in env", env: "${D}/st", goos: "linux", e: xdg, want: "/from/var/st"},
		{name: "relative flag", flag: "rel", goos: "linux", e: xdg, want: filepath.Join(cwd, "rel")},
		{name: "unset var", flag: "${NOPE}/x", goos: "linux", e: xdg, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := resolveStateDir(tt.flag, tt.env, tt.fromConf, tt.goos, tt.e)
			if tt.wantErr {
				if !errors.Is(err, ErrInvalid) {
					t.Fatalf("got %q, %v; want an ErrInvalid error", got, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestResolveStateDirNoHome(t *testing.T) {
	e := environ{getenv: func(string) string { return "" }, home: func() (string, error) { return "", errors.New("no HOME") }}
	if got, err := resolveStateDir("", "", "", "linux", e); err == nil {
		t.Fatalf("got %q with no home and no XDG_STATE_HOME", got)
	}
}

// The exported function reads the real environment.
func TestResolveStateDirFromEnvironment(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_STATE_HOME", dir)
	t.Setenv("HOME", dir)
	got, err := ResolveStateDir("", "", "")
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(got) != "mcp-watchdog" || !filepath.IsAbs(got) {
		t.Fatalf("ResolveStateDir = %q", got)
	}
}
