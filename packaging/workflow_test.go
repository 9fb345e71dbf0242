package packaging

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// actionlint runs the actionlint this module pins as a Go tool.
func actionlint(t *testing.T, files ...string) (string, error) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), "go", append([]string{"tool", "actionlint", "-no-color"}, files...)...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestWorkflowsLint: the CI workflows this machine cannot run (the macOS
// one needs a macOS runner) pass actionlint, which knows GitHub's schema
// and the inputs of the actions they use.
func TestWorkflowsLint(t *testing.T) {
	files, err := filepath.Glob("../.github/workflows/*.yml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no workflows under .github/workflows (%v)", err)
	}
	if out, err := actionlint(t, files...); err != nil {
		t.Fatalf("actionlint %v: %v\n%s", files, err, out)
	}
}

// TestActionlintCatchesAMistake: the lint is not a formality: a misspelt
// input of actions/checkout fails it.
func TestActionlintCatchesAMistake(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.yml")
	body := "on: push\njobs:\n  a:\n    runs-on: macos-14\n    steps:\n      - uses: actions/checkout@v4\n        with:\n          fetch-depht: 1\n"
	if err := os.WriteFile(bad, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := actionlint(t, bad)
	if err == nil || !strings.Contains(out, "fetch-depht") {
		t.Fatalf("actionlint passed a misspelt input (err %v):\n%s", err, out)
	}
}
