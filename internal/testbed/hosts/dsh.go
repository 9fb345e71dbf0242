package hosts

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"text/template"
)

// ServerName is the name of the one MCP server the rig gives a host (in
// DSH's profile, Codex's and Gemini's config); each host names its tools
// for the model after it.
const ServerName = "demo"

// DSHTool is the model-facing name DSH gives the server's tool.
func DSHTool(tool string) string { return "mcp__" + ServerName + "__" + tool }

// HostOptions configure one run of a real host.
type HostOptions struct {
	// Home is the host's home folder (DSH_HOME and HOME): the profile,
	// sessions and the client's beacons live under it.
	Home string
	// Workdir is the directory DSH runs in (its workspace root).
	Workdir string
	// ServerURL is the MCP server's Streamable HTTP URL.
	ServerURL string
	// ModelURL is the stand-in model API's base URL.
	ModelURL string
	// KeepConfig leaves a host config already written as it is (a test
	// that had the watchdog adopt it).
	KeepConfig bool
	// Task is the host's one task (`dsh --profile headless TASK`, `codex exec TASK`, `gemini -p TASK`).
	Task string
}

// recipeVars fill a host's recipe files (testdata/hosts/<host>: its config
// and its environment, Go text/templates).
type recipeVars struct {
	ServerName, URL, Home, ModelURL string
}

// StartDSH boots `dsh --profile headless "task"` on the install, with the
// profile patch layer and environment its folder keeps (headless.patch.yml,
// headless.env): the one MCP server, the model provider pointed at the
// stand-in model, every tool allowed, telemetry off.
func StartDSH(in DSHInstall, o HostOptions) (*Proc, error) {
	cmd, err := DSHCommand(in, o, "headless", "--profile", "headless", o.Task)
	if err != nil {
		return nil, err
	}
	return startProc(cmd)
}

// DSHCommand prepares the host's command line args (after `dsh`) for the
// profile: its patch layer written, its environment set. The web profile
// (`dsh web`) takes the same patch layer as the headless one.
func DSHCommand(in DSHInstall, o HostOptions, profile string, args ...string) (*exec.Cmd, error) {
	v := recipeVars{ServerName: ServerName, URL: o.ServerURL, Home: o.Home, ModelURL: o.ModelURL}
	if _, err := os.Stat(DSHProfilePatch(o.Home, profile)); !o.KeepConfig || err != nil {
		if err := WriteDSHProfile(in, o, profile); err != nil {
			return nil, err
		}
	}
	envText, err := fill(filepath.Join(in.Recipe, "headless.env"), v)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(in.Node, append([]string{in.Bin}, args...)...)
	if in.Command != "" {
		cmd = exec.Command(in.Command, args...)
	}
	cmd.Dir = o.Workdir
	cmd.Env = hostEnv(os.Environ(), envText, filepath.Dir(in.Node))
	return cmd, nil
}

// DSHProfilePatch is the user patch layer of profile under home.
func DSHProfilePatch(home, profile string) string {
	return filepath.Join(home, "profiles", profile, "cordis.patch.yml")
}

// WriteDSHProfile writes profile's patch layer (headless.patch.yml filled):
// the one MCP server at o.ServerURL.
func WriteDSHProfile(in DSHInstall, o HostOptions, profile string) error {
	v := recipeVars{ServerName: ServerName, URL: o.ServerURL, Home: o.Home, ModelURL: o.ModelURL}
	patch, err := fill(filepath.Join(in.Recipe, "headless.patch.yml"), v)
	if err != nil {
		return err
	}
	file := DSHProfilePatch(o.Home, profile)
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return fmt.Errorf("hosts: %w", err)
	}
	if err := os.WriteFile(file, []byte(patch), 0o600); err != nil {
		return fmt.Errorf("hosts: %w", err)
	}
	return nil
}

// fill executes the text/template in file with v.
func fill(file string, v any) (string, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("hosts: %w", err)
	}
	tmpl, err := template.New(filepath.Base(file)).Option("missingkey=error").Parse(string(b))
	if err != nil {
		return "", fmt.Errorf("hosts: %s: %w", file, err)
	}
	var out strings.Builder
	if err := tmpl.Execute(&out, v); err != nil {
		return "", fmt.Errorf("hosts: %s: %w", file, err)
	}
	return out.String(), nil
}

// hostEnv is inherited with the env file's lines applied ("-PREFIX" drops
// inherited names starting with it, KEY=VALUE sets) and nodeDir first on
// PATH: the host's plugins spawn `node`, and need the same Node 22.
func hostEnv(inherited []string, envFile, nodeDir string) []string {
	var drop, set []string
	for _, line := range strings.Split(envFile, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "-"):
			drop = append(drop, line[1:])
		default:
			set = append(set, line)
		}
	}
	var env []string
	for _, kv := range inherited {
		name, _, _ := strings.Cut(kv, "=")
		dropped := name == "PATH" || slices.ContainsFunc(drop, func(p string) bool { return strings.HasPrefix(name, p) }) ||
			slices.ContainsFunc(set, func(s string) bool { return strings.HasPrefix(s, name+"=") })
		if !dropped {
			env = append(env, kv)
		}
	}
	env = append(env, "PATH="+nodeDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return append(env, set...)
}
