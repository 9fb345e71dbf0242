package hosts

import (
	"encoding/json"
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
	// Stdio, when set, is the argv of the one MCP server, over stdio
	// instead of at ServerURL: the host's config is its stdio recipe
	// (config-stdio.toml, settings-stdio.json, ...).
	Stdio []string
}

// recipeVars fill a host's recipe files (testdata/hosts/<host>: its config
// and its environment, Go text/templates). The Stdio ones are JSON (a
// string, an array), which TOML and YAML read as their own.
type recipeVars struct {
	ServerName, URL, Home, ModelURL string
	// StdioCommand is the stdio server's command, StdioArgs its
	// arguments, StdioArgv both in one array (opencode's command list).
	StdioCommand, StdioArgs, StdioArgv string
}

// vars are the recipe variables of o.
func (o HostOptions) vars() recipeVars {
	v := recipeVars{ServerName: ServerName, URL: o.ServerURL, Home: o.Home, ModelURL: o.ModelURL}
	if len(o.Stdio) > 0 {
		js := func(x any) string { b, _ := json.Marshal(x); return string(b) }
		v.StdioCommand, v.StdioArgs, v.StdioArgv = js(o.Stdio[0]), js(append([]string{}, o.Stdio[1:]...)), js(o.Stdio)
	}
	return v
}

// recipe is the name of a recipe file for o: name, or with o.Stdio its
// stdio twin (config.toml: config-stdio.toml; headless.patch.yml:
// headless-stdio.patch.yml).
func (o HostOptions) recipe(name string) string {
	if len(o.Stdio) == 0 {
		return name
	}
	base, ext, _ := strings.Cut(name, ".")
	return base + "-stdio." + ext
}

// keep says whether a config already at file stays as it is (o.KeepConfig
// and it exists): a test had the watchdog adopt it.
func (o HostOptions) keep(file string) bool {
	_, err := os.Stat(file)
	return o.KeepConfig && err == nil
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
	v := o.vars()
	if !o.keep(DSHProfilePatch(o.Home, profile)) {
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
// the one MCP server at o.ServerURL, or over stdio (o.Stdio).
func WriteDSHProfile(in DSHInstall, o HostOptions, profile string) error {
	patch, err := fill(filepath.Join(in.Recipe, o.recipe("headless.patch.yml")), o.vars())
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

// writeRecipe writes file from the recipe name in dir (o's twin of it,
// filled with o's variables), unless o keeps a file already there.
func writeRecipe(dir, name, file string, o HostOptions) error {
	if o.keep(file) {
		return nil
	}
	text, err := fill(filepath.Join(dir, o.recipe(name)), o.vars())
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return fmt.Errorf("hosts: %w", err)
	}
	if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
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
