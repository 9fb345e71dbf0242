package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// releaseAllHome is a home with two hosts whose stdio servers are
// adopted, and their files as they were before.
func releaseAllHome(t *testing.T) (home string, env []string, files map[string]string) {
	t.Helper()
	home = t.TempDir()
	state := filepath.Join(home, ".local", "state", "mcp-watchdog")
	files = map[string]string{
		filepath.Join(home, ".codex", "config.toml"):    "[mcp_servers.mem]\ncommand = \"npx\"\nargs = [\"-y\", \"mem-mcp\"]\n",
		filepath.Join(home, ".gemini", "settings.json"): "{\n  \"mcpServers\": {\n    \"fs\": {\"command\": \"uvx\", \"args\": [\"fs-mcp\"]}\n  }\n}\n",
	}
	for path, body := range files {
		stdioMust(t, os.MkdirAll(filepath.Dir(path), 0o700))
		stdioMust(t, os.WriteFile(path, []byte(body), 0o600))
	}
	env = []string{"HOME=" + home, "WATCHDOG_STATE_DIR=" + state, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_STATE_HOME=" + filepath.Join(home, ".local", "state")}
	for _, h := range []string{"Codex CLI", "Gemini CLI"} {
		if code, out, errOut := runWatchdogEnv(t, env, "hosts", "adopt", h, "--no-autostart"); code != 0 {
			t.Fatalf("adopt %s: exit %d: %s %s", h, code, out, errOut)
		}
	}
	for path, body := range files {
		if string(readFile(t, path)) == body {
			t.Fatalf("adopt left %s as it was", path)
		}
	}
	return home, env, files
}

// `watchdog hosts release --all` gives every adopted host its file back,
// byte for byte.
func TestReleaseAllGivesEveryHostBack(t *testing.T) {
	t.Parallel()
	_, env, files := releaseAllHome(t)
	code, out, errOut := runWatchdogEnv(t, env, "hosts", "release", "--all")
	if code != 0 {
		t.Fatalf("release --all: exit %d: %s %s", code, out, errOut)
	}
	for path, body := range files {
		if got := string(readFile(t, path)); got != body {
			t.Errorf("%s after release --all:\n%s\nwant:\n%s", path, got, body)
		}
	}
	if !strings.Contains(out, "Codex CLI: ") || !strings.Contains(out, "Gemini CLI: ") {
		t.Errorf("release --all said nothing of each host:\n%s", out)
	}
}

// The package's prerm gives each user's hosts back on removal, as that
// user, and leaves them adopted on an upgrade.
func TestPrermGivesEveryUsersHostsBack(t *testing.T) {
	t.Parallel()
	home, env, files := releaseAllHome(t)
	shims := t.TempDir()
	// getent and runuser stand in for the system's: one user, this home.
	stdioMust(t, os.WriteFile(filepath.Join(shims, "getent"), []byte("#!/bin/sh\necho 'tester:x:1000:1000::"+home+":/bin/sh'\n"), 0o755))
	stdioMust(t, os.WriteFile(filepath.Join(shims, "runuser"), []byte("#!/bin/sh\n[ \"$1\" = -u ] && [ \"$2\" = tester ] && [ \"$3\" = -- ] || exit 9\nshift 3\nexec \"$@\"\n"), 0o755))
	prerm := func(arg string) {
		cmd := exec.Command("sh", filepath.Join("..", "..", "packaging", "linux", "prerm"), arg)
		cmd.Env = append(os.Environ(), append(env, "PATH="+shims+":"+os.Getenv("PATH"), "WATCHDOG="+os.Args[0], asBinary+"=1")...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("prerm %s: %v\n%s", arg, err, out)
		}
	}
	prerm("upgrade")
	for path, body := range files {
		if string(readFile(t, path)) == body {
			t.Errorf("prerm upgrade released %s; an upgrade keeps the hosts adopted", path)
		}
	}
	prerm("remove")
	for path, body := range files {
		if got := string(readFile(t, path)); got != body {
			t.Errorf("%s after prerm remove:\n%s\nwant:\n%s", path, got, body)
		}
	}
}
