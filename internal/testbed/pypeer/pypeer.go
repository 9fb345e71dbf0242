// Package pypeer runs the Python MCP peers of testdata/pypeers for tests: the Python
// SDK's client (client.py, the `mcp` 1.x or 2.x of a venv under testdata/pyenv) and a
// FastMCP server (fastmcp_server.py). Both speak the line protocol and admin API of
// internal/testbed/tsserver, whose Client and Server they return. A missing venv fails
// the test with the fix: run `make deps` (scripts/deps-python.sh).
package pypeer

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/testbed/repo"
	"github.com/mcpwatchdog/watchdog/internal/testbed/tsserver"
)

// SDK is one venv of testdata/pyenv: a line of the Python SDK.
type SDK string

const (
	// SDK1 is the Python SDK's last 1.x (testdata/pypeers/mcp1.txt).
	SDK1 SDK = "mcp1"
	// SDK2 is its current 2.x, with FastMCP (testdata/pypeers/mcp2.txt).
	SDK2 SDK = "mcp2"
)

// ErrMissingDeps is wrapped by the error for a venv that is missing or does not match
// its requirements file.
var ErrMissingDeps = errors.New("Python MCP peers not installed")

const fixHint = "run `make deps` (scripts/deps-python.sh; Debian: apt-get install -y python3-venv)"

// Python returns the venv's interpreter and the scripts' directory
// (testdata/pypeers), or an error wrapping ErrMissingDeps that names the fix.
func Python(sdk SDK) (bin, dir string, err error) {
	root, err := repo.Root()
	if err != nil {
		return "", "", err
	}
	dir = filepath.Join(root, "testdata", "pypeers")
	venv := filepath.Join(root, "testdata", "pyenv", string(sdk))
	// deps-python.sh writes the stamp last: a venv without it is half made.
	if _, err := os.Stat(filepath.Join(venv, ".deps-python-stamp")); err != nil {
		return "", "", fmt.Errorf("%w: no venv %s (%v); %s", ErrMissingDeps, venv, err, fixHint)
	}
	return filepath.Join(venv, "bin", "python"), dir, nil
}

// StartClient connects the Python SDK client of sdk to url and waits until it is
// ready; it is stopped when the test ends.
func StartClient(t testing.TB, sdk SDK, url string) *tsserver.Client {
	t.Helper()
	bin, dir, err := Python(sdk)
	if err != nil {
		t.Fatal(err)
	}
	return tsserver.StartLineClient(t, "python-sdk "+string(sdk)+" client", bin, dir,
		[]string{"client.py", "--url", url})
}

// FastMCPOptions configures StartFastMCP. The zero value: a free port, sessions that
// never idle out.
type FastMCPOptions struct {
	// IdleTimeout is FastMCP's session_idle_timeout, in whole milliseconds. Its idle
	// countdown stands still while any request or GET stream of the session is open.
	IdleTimeout time.Duration
	// Port to listen on; a stopped server's port again is a restart at the same URL.
	Port int
}

// StartFastMCP runs the FastMCP server (stateful Streamable HTTP) and waits until it
// listens; it is killed when the test ends.
func StartFastMCP(t testing.TB, o FastMCPOptions) *tsserver.Server {
	t.Helper()
	bin, dir, err := Python(SDK2)
	if err != nil {
		t.Fatal(err)
	}
	return tsserver.StartProgram(t, tsserver.Program{Name: "fastmcp server", Bin: bin, Dir: dir,
		Args: []string{"fastmcp_server.py", "--port", fmt.Sprint(o.Port), "--idle-ms", fmt.Sprint(o.IdleTimeout.Milliseconds())}})
}
