package repro

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// ErrMissingDeps is wrapped by the errors for a missing node, npm packages
// or real client; the message names the fix.
var ErrMissingDeps = errors.New("repro: dependencies not installed")

// fixHint names the command that installs what the reproduction needs.
const fixHint = "run `make deps` (npm ci in testdata/tsservers and testdata/dshclient, " +
	"and scripts/deps-dshclient.sh for the real client; node and npm: apt-get install -y nodejs npm)"

// sdkVersion is the @modelcontextprotocol/sdk that testdata pins.
const sdkVersion = "1.32.2"

// paths are the files of the checkout the reproduction runs.
type paths struct {
	root       string
	clientDir  string // testdata/dshclient
	serverDir  string // testdata/tsservers
	realDir    string // testdata/dshclient/real
	stubsDir   string // testdata/dshclient/stubs
	hostScript string // testdata/dshclient/host.mjs
}

func newPaths(root string) paths {
	client := filepath.Join(root, "testdata", "dshclient")
	return paths{
		root:       root,
		clientDir:  client,
		serverDir:  filepath.Join(root, "testdata", "tsservers"),
		realDir:    filepath.Join(client, "real"),
		stubsDir:   filepath.Join(client, "stubs"),
		hostScript: filepath.Join(client, "host.mjs"),
	}
}

// check returns the node binary when everything o needs is installed.
func (p paths) check(o Options) (string, error) {
	node, err := exec.LookPath(o.Node)
	if err != nil {
		return "", fmt.Errorf("%w: node: %v; %s", ErrMissingDeps, err, fixHint)
	}
	dirs := []string{p.clientDir}
	if o.Server == TSSDK {
		dirs = append(dirs, p.serverDir)
	}
	for _, dir := range dirs {
		if err := checkSDK(dir); err != nil {
			return "", err
		}
	}
	if o.Client == Real {
		if _, err := os.Stat(filepath.Join(p.realDir, "lib", "index.js")); err != nil {
			return "", fmt.Errorf("%w: the real %s is not in %s (%v); %s", ErrMissingDeps, dsh().Client.ShortName(), p.realDir, err, fixHint)
		}
	}
	return node, nil
}

// checkSDK: dir/node_modules holds the pinned MCP SDK.
func checkSDK(dir string) error {
	b, err := os.ReadFile(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk", "package.json"))
	if err != nil {
		return fmt.Errorf("%w: @modelcontextprotocol/sdk is not installed in %s (%v); %s", ErrMissingDeps, dir, err, fixHint)
	}
	var pkg struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(b, &pkg); err != nil || pkg.Version != sdkVersion {
		return fmt.Errorf("%w: %s has @modelcontextprotocol/sdk %q, want %s; %s", ErrMissingDeps, dir, pkg.Version, sdkVersion, fixHint)
	}
	return nil
}
