package hosts

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/mcpwatchdog/watchdog/internal/host"
)

// geminiVersion is the Gemini CLI release the rig is fitted to.
const geminiVersion = "0.61.0"

// geminiFix names the command that installs the real Gemini CLI.
const geminiFix = "run `make deps` (scripts/deps-gemini.sh installs the host " + geminiVersion +
	" into testdata/hosts/gemini; node and npm: apt-get install -y nodejs npm)"

// GeminiInstall is the real Gemini CLI as scripts/deps-gemini.sh installs it.
type GeminiInstall struct {
	Name    string // the host's name, as its profile says
	Recipe  string // testdata/hosts/gemini: settings.json, run.env
	Node    string // the node that runs it (the system's, 20+)
	Bin     string // its bundled entry
	Version string
}

// FindGemini returns the install under root, or an error wrapping
// ErrMissingDeps that says how to install it.
func FindGemini(root string) (GeminiInstall, error) {
	dir := filepath.Join(root, "testdata", "hosts", "gemini")
	in := GeminiInstall{Name: host.GeminiCLI().Name, Recipe: dir,
		Bin: filepath.Join(dir, "node_modules", "@google", "gemini-cli", "bundle", "gemini.js")}
	node, err := exec.LookPath("node")
	if err != nil {
		return in, fmt.Errorf("%w: %s: node: %v; %s", ErrMissingDeps, in.Name, err, geminiFix)
	}
	in.Node = node
	in.Version, err = checkInstall(in.Name, geminiFix, geminiVersion, "", exec.Command(in.Node, in.Bin, "--version"),
		in.Bin, filepath.Join(dir, "node_modules", ".deps-gemini-stamp"))
	return in, err
}

// geminiModel is the model the rig names: a fixed one, so Gemini CLI asks
// no routing question of the model before the conversation.
const geminiModel = "gemini-2.5-flash"

// StartGemini runs `gemini -p task` with every tool allowed (--yolo), its
// settings.json (the one MCP server, API-key auth, nothing sent home;
// settings-stdio.json for a stdio server) written into $HOME/.gemini
// (unless o.KeepConfig keeps one there), the stand-in as its Gemini API.
func StartGemini(in GeminiInstall, o HostOptions) (*Proc, error) {
	if err := writeRecipe(in.Recipe, "settings.json", geminiSettings(o.Home), o); err != nil {
		return nil, err
	}
	envText, err := fill(filepath.Join(in.Recipe, "run.env"), o.vars())
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(in.Node, in.Bin, "--model", geminiModel, "--yolo", "-p", o.Task)
	cmd.Dir = o.Workdir
	cmd.Env = hostEnv(os.Environ(), envText, filepath.Dir(in.Node))
	return startProc(cmd)
}

// geminiSettings is the Gemini CLI's user settings file under home.
func geminiSettings(home string) string { return filepath.Join(home, ".gemini", "settings.json") }

// GeminiTool is the model-facing name Gemini CLI gives the server's tool.
func GeminiTool(tool string) string { return "mcp_" + ServerName + "_" + tool }
