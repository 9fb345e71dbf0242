package tsserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// fixHint names the one command that installs what the servers need.
const fixHint = "run `make deps` (npm ci in testdata/tsservers; node and npm come from `apt-get install -y nodejs npm`)"

// sdkPackage is the npm package whose pinned version must be installed.
const sdkPackage = "@modelcontextprotocol/sdk"

// ErrMissingDeps is wrapped by the errors for a missing node, node_modules or a
// node_modules that does not match package.json.
var ErrMissingDeps = errors.New("TypeScript test servers not installed")

func serverDir(root string) string { return filepath.Join(root, "testdata", "tsservers") }

// checkDeps returns the node binary, or an error wrapping ErrMissingDeps that names the
// fix. lookPath nil means exec.LookPath.
func checkDeps(root string, lookPath func(string) (string, error)) (string, error) {
	if lookPath == nil {
		lookPath = exec.LookPath
	}
	node, err := lookPath("node")
	if err != nil {
		return "", fmt.Errorf("%w: node not found on PATH (%v); %s", ErrMissingDeps, err, fixHint)
	}
	dir := serverDir(root)
	want, err := pinnedVersion(filepath.Join(dir, "package.json"))
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrMissingDeps, err)
	}
	installed := filepath.Join(dir, "node_modules", filepath.FromSlash(sdkPackage), "package.json")
	got, err := packageVersion(installed)
	if err != nil {
		return "", fmt.Errorf("%w: %s is not installed in %s (%v); %s", ErrMissingDeps, sdkPackage, dir, err, fixHint)
	}
	if got != want {
		return "", fmt.Errorf("%w: %s %s installed, package.json pins %s; %s", ErrMissingDeps, sdkPackage, got, want, fixHint)
	}
	return node, nil
}

type packageJSON struct {
	Version      string            `json:"version"`
	Dependencies map[string]string `json:"dependencies"`
}

func readPackageJSON(path string) (packageJSON, error) {
	var p packageJSON
	b, err := os.ReadFile(path)
	if err != nil {
		return p, err
	}
	if err := json.Unmarshal(b, &p); err != nil {
		return p, fmt.Errorf("parse %s: %w", path, err)
	}
	return p, nil
}

func pinnedVersion(path string) (string, error) {
	p, err := readPackageJSON(path)
	if err != nil {
		return "", err
	}
	v := p.Dependencies[sdkPackage]
	if v == "" {
		return "", fmt.Errorf("%s does not depend on %s", path, sdkPackage)
	}
	return v, nil
}

func packageVersion(path string) (string, error) {
	p, err := readPackageJSON(path)
	if err != nil {
		return "", err
	}
	if p.Version == "" {
		return "", fmt.Errorf("%s has no version", path)
	}
	return p.Version, nil
}
