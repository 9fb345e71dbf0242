// Package tsmodern runs the real modern-only MCP server of testdata/tsmodern for
// tests: the TypeScript SDK v2 (@modelcontextprotocol/server, pinned in its
// package.json) with createMcpHandler(factory, { legacy: 'reject' }) on the Node
// adapter (@modelcontextprotocol/node). It serves only the 2026-07-28 protocol: a
// legacy client's initialize, ping or tools/call gets the SDK's own 400 -32022, GET
// and DELETE get 405. Its tools are echo and count; Server.Count is how many times
// either ran (the ground truth of "each call ran once"), Server.Calls the echo calls.
//
// It speaks internal/testbed/tsserver's stdout and admin protocol, so a Server is a
// *tsserver.Server. A missing node or node_modules fails the test with the fix: run
// `make deps` (npm ci in testdata/tsmodern).
package tsmodern

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/mcpwatchdog/watchdog/internal/testbed/repo"
	"github.com/mcpwatchdog/watchdog/internal/testbed/tsserver"
)

// ErrMissingDeps is wrapped by the error for a missing node, node_modules, or a
// node_modules that does not match package.json.
var ErrMissingDeps = errors.New("the modern-only TypeScript test server is not installed")

const fixHint = "run `make deps` (npm ci in testdata/tsmodern; node and npm come from `apt-get install -y nodejs npm`)"

// pinned are the packages whose installed versions must be the ones package.json pins.
var pinned = []string{"@modelcontextprotocol/server", "@modelcontextprotocol/node"}

// Options configure Start. The zero value is a server on a free port.
type Options struct {
	// Port to listen on; zero picks a free one. A stopped Server's port again is a
	// restart at the same URL.
	Port int
}

// Start runs `node testdata/tsmodern/server.mjs` and waits until it listens; it
// fails the test (never skips) when node or the npm packages are missing, and stops
// the server when the test ends.
func Start(t testing.TB, o Options) *tsserver.Server {
	t.Helper()
	p, err := program(o)
	if err != nil {
		t.Fatal(err)
	}
	return tsserver.StartProgram(t, p)
}

// Launch is Start for callers that are not a test's goroutine (the demo): the caller
// must Stop the server.
func Launch(o Options) (*tsserver.Server, error) {
	p, err := program(o)
	if err != nil {
		return nil, err
	}
	return tsserver.LaunchProgram(p)
}

func program(o Options) (tsserver.Program, error) {
	if o.Port < 0 || o.Port > 65535 {
		return tsserver.Program{}, fmt.Errorf("tsmodern: bad port %d", o.Port)
	}
	root, err := repo.Root()
	if err != nil {
		return tsserver.Program{}, fmt.Errorf("tsmodern: %w", err)
	}
	dir := filepath.Join(root, "testdata", "tsmodern")
	node, err := checkDeps(dir)
	if err != nil {
		return tsserver.Program{}, fmt.Errorf("tsmodern: %w", err)
	}
	return tsserver.Program{Name: "tsmodern: modern-only server", Bin: node, Dir: dir,
		Args: []string{"server.mjs", "--port", fmt.Sprint(o.Port)}}, nil
}

// checkDeps returns the node binary, or an error wrapping ErrMissingDeps that names
// the fix.
func checkDeps(dir string) (string, error) {
	node, err := exec.LookPath("node")
	if err != nil {
		return "", fmt.Errorf("%w: node not found on PATH (%v); %s", ErrMissingDeps, err, fixHint)
	}
	var pkg struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	if err := readJSON(filepath.Join(dir, "package.json"), &pkg); err != nil {
		return "", fmt.Errorf("%w: %v", ErrMissingDeps, err)
	}
	for _, name := range pinned {
		var got struct {
			Version string `json:"version"`
		}
		err := readJSON(filepath.Join(dir, "node_modules", filepath.FromSlash(name), "package.json"), &got)
		if err != nil {
			return "", fmt.Errorf("%w: %s is not installed in %s (%v); %s", ErrMissingDeps, name, dir, err, fixHint)
		}
		if want := pkg.Dependencies[name]; got.Version != want {
			return "", fmt.Errorf("%w: %s %s installed, package.json pins %q; %s", ErrMissingDeps, name, got.Version, want, fixHint)
		}
	}
	return node, nil
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("parse %s: %w", path, err)
	}
	return nil
}
