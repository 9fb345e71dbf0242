package hosts

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// cliWithin bounds one of a host's own commands (mcp add, mcp list): list
// connects to each server.
const cliWithin = 90 * time.Second

// HostCLI runs a real host's own command line (its mcp add, mcp list,
// mcp remove) as a user would in dir, with home as HOME and the
// environment the rig runs the host in (nothing but loopback). It returns
// what the command printed, stdout and stderr together.
type HostCLI func(home, dir string, args ...string) (string, error)

// ClaudeCLI is the real Claude Code's `claude`.
func ClaudeCLI(in ClaudeInstall) HostCLI {
	return func(home, dir string, args ...string) (string, error) {
		return runCLI(in.Recipe, "run.env", filepath.Dir(in.Bin), home, dir, in.Bin, args...)
	}
}

// GeminiCLI is the real Gemini CLI's `gemini`.
func GeminiCLI(in GeminiInstall) HostCLI {
	return func(home, dir string, args ...string) (string, error) {
		return runCLI(in.Recipe, "run.env", filepath.Dir(in.Node), home, dir, in.Node, append([]string{in.Bin}, args...)...)
	}
}

// CodexCLI is the real Codex CLI's `codex`.
func CodexCLI(in CodexInstall) HostCLI {
	return func(home, dir string, args ...string) (string, error) {
		return runCLI(in.Recipe, "exec.env", filepath.Dir(in.Bin), home, dir, in.Bin, args...)
	}
}

func runCLI(recipe, envFile, binDir, home, dir, bin string, args ...string) (string, error) {
	envText, err := fill(filepath.Join(recipe, envFile), recipeVars{ServerName: ServerName, Home: home, ModelURL: "http://127.0.0.1:9"})
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), cliWithin)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = append(hostEnv(os.Environ(), envText, binDir), "XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"XDG_STATE_HOME="+filepath.Join(home, ".local/state"), "XDG_DATA_HOME="+filepath.Join(home, ".local/share"),
		"XDG_CACHE_HOME="+filepath.Join(home, ".cache"))
	out, err := cmd.CombinedOutput()
	return string(out), err
}
