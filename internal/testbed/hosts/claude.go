package hosts

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/mcpwatchdog/watchdog/internal/host"
)

// claudeVersion is the Claude Code release the rig is fitted to.
const claudeVersion = "2.1.332"

// claudeFix names the command that installs the real Claude Code CLI.
const claudeFix = "run `make deps` (scripts/deps-claude.sh installs the host " + claudeVersion +
	" into testdata/hosts/claude; npm: apt-get install -y nodejs npm)"

// ClaudeInstall is the real Claude Code CLI as scripts/deps-claude.sh
// installs it.
type ClaudeInstall struct {
	Name   string // the host's name, as its profile says
	Recipe string // testdata/hosts/claude: claude.json, run.env
	// Bin is the `claude` command, node_modules/.bin/claude: a link to
	// bin/claude.exe, the native binary, so the process is named claude
	// (the profile's process name), as on a user's machine.
	Bin     string
	Version string
}

// FindClaude returns the install under root, or an error wrapping
// ErrMissingDeps that says how to install it.
func FindClaude(root string) (ClaudeInstall, error) {
	dir := filepath.Join(root, "testdata", "hosts", "claude")
	mods := filepath.Join(dir, "node_modules")
	in := ClaudeInstall{Name: host.ClaudeCode().Name, Recipe: dir, Bin: filepath.Join(mods, ".bin", "claude")}
	// Without its postinstall, bin/claude.exe is a script that says so and
	// exits 1: --version tells the two apart. It prints "2.1.332 (Claude Code)".
	suffix := " (" + in.Name + ")"
	v, err := checkInstall(in.Name, claudeFix, claudeVersion+suffix, "", exec.Command(in.Bin, "--version"),
		in.Bin, filepath.Join(mods, ".deps-claude-stamp"))
	in.Version = strings.TrimSuffix(v, suffix)
	return in, err
}

// StartClaude runs `claude -p task` with the MCP server's echo tool
// allowed (nobody is there to answer a permission prompt), its
// claude.json (the one MCP server, user scope; claude-stdio.json for a
// stdio one) written as $HOME/.claude.json (unless o.KeepConfig keeps one),
// the stand-in as its Anthropic API.
func StartClaude(in ClaudeInstall, o HostOptions) (*Proc, error) {
	if err := writeRecipe(in.Recipe, "claude.json", claudeConfig(o.Home), o); err != nil {
		return nil, err
	}
	envText, err := fill(filepath.Join(in.Recipe, "run.env"), o.vars())
	if err != nil {
		return nil, err
	}
	// --allowedTools takes a list: with "=" it takes only the one.
	cmd := exec.Command(in.Bin, "--allowedTools="+ClaudeTool("echo"), "-p", o.Task)
	cmd.Dir = o.Workdir
	cmd.Env = append(hostEnv(os.Environ(), envText, filepath.Dir(in.Bin)), "XDG_CONFIG_HOME="+filepath.Join(o.Home, ".config"),
		"XDG_STATE_HOME="+filepath.Join(o.Home, ".local/state"), "XDG_DATA_HOME="+filepath.Join(o.Home, ".local/share"),
		"XDG_CACHE_HOME="+filepath.Join(o.Home, ".cache"))
	return startProc(cmd)
}

// claudeConfig is Claude Code's user file under home.
func claudeConfig(home string) string { return filepath.Join(home, ".claude.json") }

// ClaudeTool is the model-facing name Claude Code gives the server's tool.
func ClaudeTool(tool string) string { return "mcp__" + ServerName + "__" + tool }
