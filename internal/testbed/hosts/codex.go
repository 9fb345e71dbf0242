package hosts

import (
	"os"
	"os/exec"
	"path/filepath"

	"github.com/mcpwatchdog/watchdog/internal/host"
)

// codexVersion is the Codex CLI release the rig is fitted to.
const codexVersion = "0.169.0"

// codexFix names the command that installs the real Codex CLI.
const codexFix = "run `make deps` (scripts/deps-codex.sh installs the host " + codexVersion +
	" into testdata/hosts/codex; npm: apt-get install -y nodejs npm)"

// CodexInstall is the real Codex CLI as scripts/deps-codex.sh installs it.
type CodexInstall struct {
	Name    string // the host's name, as its profile says
	Recipe  string // testdata/hosts/codex: config.toml, exec.env
	Bin     string // the native binary
	Version string
}

// FindCodex returns the install under root, or an error wrapping
// ErrMissingDeps that says how to install it.
func FindCodex(root string) (CodexInstall, error) {
	dir := filepath.Join(root, "testdata", "hosts", "codex")
	in := CodexInstall{Name: host.CodexCLI().Name, Recipe: dir,
		Bin: filepath.Join(dir, "node_modules", "@openai", "codex-linux-x64", "vendor", "x86_64-unknown-linux-musl", "bin", "codex")}
	var err error
	in.Version, err = checkInstall(in.Name, codexFix, codexVersion, "codex-cli ", exec.Command(in.Bin, "--version"),
		in.Bin, filepath.Join(dir, "node_modules", ".deps-codex-stamp"))
	return in, err
}

// StartCodex runs `codex exec` with one task: the config its folder keeps
// (config.toml: the stand-in model as the provider, the one MCP server;
// config-stdio.toml for a stdio one) written into CODEX_HOME (unless
// o.KeepConfig keeps one there), every approval and the sandbox off (nobody is
// there to answer, and the echo tool touches nothing).
func StartCodex(in CodexInstall, o HostOptions) (*Proc, error) {
	if err := writeRecipe(in.Recipe, "config.toml", codexConfig(o.Home), o); err != nil {
		return nil, err
	}
	envText, err := fill(filepath.Join(in.Recipe, "exec.env"), o.vars())
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(in.Bin, "exec", "--dangerously-bypass-approvals-and-sandbox", "--skip-git-repo-check", o.Task)
	cmd.Dir = o.Workdir
	cmd.Env = hostEnv(os.Environ(), envText, filepath.Dir(in.Bin))
	return startProc(cmd)
}

// codexConfig is the Codex CLI's config file under home.
func codexConfig(home string) string { return filepath.Join(home, ".codex", "config.toml") }

// CodexTool is the model-facing name Codex gives the server's tool.
func CodexTool(tool string) string { return "mcp__" + ServerName + "/" + tool }
