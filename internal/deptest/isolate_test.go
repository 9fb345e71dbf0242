package deptest_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A host CLI the deps scripts run (its --version after the install) gets
// a HOME of its own, removed afterwards: measured before, `gemini
// --version` left 14 projects.json.*.tmp files in the user's ~/.gemini,
// and Codex more in ~/.codex/tmp. The HOME the script was given is
// unchanged, and so is the npm cache's place.
func TestHostCLIsRunInAHomeOfTheirOwn(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	given := t.TempDir()
	// What Gemini CLI and Codex CLI do with the HOME they are given.
	host := `mkdir -p "$HOME/.gemini" "$CODEX_HOME/tmp" && touch "$HOME/.gemini/projects.json.1.tmp" "$CODEX_HOME/tmp/x" && echo "$HOME $npm_config_cache"`
	cmd := exec.Command("bash", "-c", `source scripts/isolate.sh && isolated sh -c '`+host+`'`)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "HOME="+given, "npm_config_cache=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("isolated: %v: %s", err, out)
	}
	fields := strings.Fields(string(out))
	if len(fields) != 2 || fields[0] == given || fields[1] != filepath.Join(given, ".npm") {
		t.Fatalf("the host ran with HOME and npm cache %q; want a HOME of its own and the npm cache left at %s/.npm", out, given)
	}
	if entries, _ := os.ReadDir(given); len(entries) != 0 {
		t.Errorf("the HOME the script was given changed: %v", entries)
	}
	if _, err := os.Stat(fields[0]); !os.IsNotExist(err) {
		t.Errorf("the host's own HOME %s was left behind: %v", fields[0], err)
	}
	// The scripts that run a host use it.
	b, err := os.ReadFile(filepath.Join(root, "scripts", "npm-host.sh"))
	if err != nil || !strings.Contains(string(b), "$(isolated host_version)") {
		t.Errorf("scripts/npm-host.sh does not run the host's --version isolated: %v", err)
	}
}
