package hosts

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/host"
	"github.com/mcpwatchdog/watchdog/internal/testbed/repo"
)

// CLIHost is one of the command line hosts the rig runs a prompt with
// (opencode, Copilot CLI, Qwen Code, Cline): how to install-check it,
// configure its model (the stand-in), register the server with its own
// CLI, run one prompt, and read what it hands back.
type CLIHost struct {
	Prof    host.Profile
	Dir     string // testdata/hosts/<Dir>, with its run.env recipe
	Version string // the release the rig is fitted to
	// bin is the command (and the script a node runs) relative to Dir.
	bin []string
	// versionArgs print the version; want is the line they print.
	versionArgs []string
	want        string
	// setup configures the host's model (after the recipe's files are
	// written), with its own CLI where it has one.
	setup func(run HostCLI, o HostOptions) error
	// files are recipe templates written under HOME (opencode.json).
	files map[string]string
	// register is the host's own command that adds a server by URL.
	register func(name, url string) []string
	// stdioFiles, for a stdio server, replace files (opencode's
	// opencode-stdio.json, whose mcp table names the server's command);
	// registerStdio is the host's own command that adds a stdio server of
	// argv. nil: the stdio server is in its files.
	stdioFiles    map[string]string
	registerStdio func(name string, argv []string) []string
	// prompt runs one prompt.
	prompt func(task string) []string
	// Tool is the model-facing name of the server's echo tool.
	Tool string
	// echoed says whether a tool result is the echo of text.
	echoed func(content, text string) bool
	// side says whether a model request is one of the host's own side
	// questions (a title, a check), answered at once.
	side func(tools []string) bool
	// helper marks the processes a prompt run leaves behind that the
	// rig ends (Cline's hub daemon), found by their working directory.
	helper string
	// env adds to the environment of the host's runs under home (nil:
	// nothing), the same for each run there.
	env func(home string) ([]string, error)
}

// homePort is a loopback port of home's own, picked free the first time
// and kept in home (in name) for its later runs.
func homePort(home, name string) (string, error) {
	file := filepath.Join(home, name)
	if b, err := os.ReadFile(file); err == nil {
		return string(b), nil
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("hosts: a port for %s: %w", name, err)
	}
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	ln.Close()
	if err := os.WriteFile(file, []byte(port), 0o600); err != nil {
		return "", fmt.Errorf("hosts: %w", err)
	}
	return port, nil
}

// cliFix names the command that installs h.
func (h CLIHost) fix() string {
	return fmt.Sprintf("run `make deps` (scripts/deps-%s.sh installs the host %s into testdata/hosts/%s; npm: apt-get install -y nodejs npm)",
		h.Dir, h.Version, h.Dir)
}

// Name is the host's name, its version with it.
func (h CLIHost) Name() string { return h.Prof.Name }

// Client is the clientInfo.name the host's client sends for the rig's
// server: its profile's, a pattern's * standing for the server's name.
func (h CLIHost) Client() string {
	if pre, ok := strings.CutSuffix(h.Prof.ClientName, "*"); ok {
		return pre + ServerName
	}
	return h.Prof.ClientName
}

// find checks the install under root, or fails with ErrMissingDeps and
// the command that installs it.
func (h CLIHost) find(root string) (installed, error) {
	dir := filepath.Join(root, "testdata", "hosts", h.Dir)
	in := installed{h: h, dir: dir}
	for _, a := range h.bin {
		if strings.Contains(a, "/") {
			in.argv = append(in.argv, filepath.Join(dir, filepath.FromSlash(a)))
		} else {
			in.argv = append(in.argv, a)
		}
	}
	files := []string{filepath.Join(dir, "node_modules", ".deps-"+h.Dir+"-stamp")}
	for _, a := range in.argv {
		if filepath.IsAbs(a) {
			files = append(files, a)
		}
	}
	for _, f := range files {
		if _, err := os.Stat(f); err != nil {
			return in, fmt.Errorf("%w: %s: %v; %s", ErrMissingDeps, h.Prof.Name, err, h.fix())
		}
	}
	cmd := exec.Command(in.argv[0], append(slices.Clone(in.argv[1:]), h.versionArgs...)...)
	out, err := outputIn(cmd)
	if err != nil {
		return in, fmt.Errorf("%w: %s: %s: %v; %s", ErrMissingDeps, h.Prof.Name, strings.Join(cmd.Args, " "), err, h.fix())
	}
	first, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	if first != h.want {
		return in, fmt.Errorf("%w: %s says %q, want %q; %s", ErrMissingDeps, h.Prof.Name, first, h.want, h.fix())
	}
	in.version = h.Version
	return in, nil
}

// installed is a CLI host found installed.
type installed struct {
	h       CLIHost
	dir     string
	argv    []string
	version string
}

// env is the host's environment: its recipe's run.env filled in, the
// binary's folder first on PATH.
func (in installed) env(o HostOptions) ([]string, error) {
	text, err := fill(filepath.Join(in.dir, "run.env"), o.vars())
	if err != nil {
		return nil, err
	}
	env := hostEnv(os.Environ(), text, filepath.Dir(in.argv[0]))
	if in.h.env == nil {
		return env, nil
	}
	more, err := in.h.env(o.Home)
	return append(env, more...), err
}

// cli runs the host's own command line as a user would in dir.
func (in installed) cli(o HostOptions) HostCLI {
	return func(home, dir string, args ...string) (string, error) {
		o.Home = home
		env, err := in.env(o)
		if err != nil {
			return "", err
		}
		ctx, cancel := context.WithTimeout(context.Background(), cliWithin)
		defer cancel()
		cmd := exec.CommandContext(ctx, in.argv[0], append(slices.Clone(in.argv[1:]), args...)...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		in.endHelpers(dir)
		return string(out), err
	}
}

// prepare configures the host's model and registers the server at
// o.ServerURL (or the stdio server of o.Stdio) with the host's own CLI, as
// a user would.
func (in installed) prepare(o HostOptions) error {
	files, register := in.h.files, in.h.register(ServerName, o.ServerURL)
	if len(o.Stdio) > 0 {
		register = nil
		if in.h.stdioFiles != nil {
			files = in.h.stdioFiles
		}
		if in.h.registerStdio != nil {
			register = in.h.registerStdio(ServerName, o.Stdio)
		}
	}
	for name, to := range files {
		text, err := fill(filepath.Join(in.dir, name), o.vars())
		if err != nil {
			return err
		}
		path := filepath.Join(o.Home, filepath.FromSlash(to))
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return fmt.Errorf("hosts: %w", err)
		}
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			return fmt.Errorf("hosts: %w", err)
		}
	}
	run := in.cli(o)
	if in.h.setup != nil {
		if err := in.h.setup(run, o); err != nil {
			return err
		}
	}
	if register == nil {
		return nil
	}
	if out, err := run(o.Home, o.Workdir, register...); err != nil {
		return fmt.Errorf("hosts: %s's own mcp add: %w\n%s", in.h.Prof.Name, err, out)
	}
	return nil
}

// start runs one prompt (o.Task) in o.Workdir.
func (in installed) start(o HostOptions) (*Proc, error) {
	env, err := in.env(o)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(in.argv[0], append(slices.Clone(in.argv[1:]), in.h.prompt(o.Task)...)...)
	cmd.Dir, cmd.Env = o.Workdir, env
	return startProc(cmd)
}

// endHelpers ends the processes of the host's program a run in dir left
// behind (Cline's hub daemon, named by the folder it was started for):
// nobody else's, and only this rig's.
func (in installed) endHelpers(dir string) {
	if in.h.helper == "" {
		return
	}
	for _, pid := range helperPIDs(in.h.helper, dir) {
		_ = syscall.Kill(pid, syscall.SIGTERM)
	}
	deadline := time.Now().Add(helperGrace)
	for len(helperPIDs(in.h.helper, dir)) > 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond) // polling /proc for the pids to go
	}
	for _, pid := range helperPIDs(in.h.helper, dir) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

// helperPIDs are the processes whose command line carries mark and the
// folder dir (Linux: /proc).
func helperPIDs(mark, dir string) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		var pid int
		if _, err := fmt.Sscanf(e.Name(), "%d", &pid); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		args := strings.Split(string(b), "\x00")
		if slices.Contains(args, mark) && slices.Contains(args, dir) {
			out = append(out, pid)
		}
	}
	return out
}

// mustInstalled is h's install; a missing one fails the test with the
// command that installs it.
func mustInstalled(tb interface {
	Helper()
	Fatal(...any)
}, h CLIHost) installed {
	tb.Helper()
	root, err := repo.Root()
	if err != nil {
		tb.Fatal(err)
	}
	in, err := h.find(root)
	if err != nil {
		tb.Fatal(err)
	}
	return in
}

// ErrNoEcho: a tool result that is not the echo.
var ErrNoEcho = errors.New("not the echo")

// linesHold says whether text is one of content's lines.
func linesHold(content, text string) bool {
	return slices.Contains(strings.Split(content, "\n"), text)
}

// clineEcho says whether Cline's tool result (the MCP result as JSON) is
// the echo: no error, its text part the text.
func clineEcho(content, text string) bool {
	var res struct {
		IsError bool `json:"isError"`
		Content []struct{ Text string }
	}
	if json.Unmarshal([]byte(content), &res) != nil || res.IsError || len(res.Content) == 0 {
		return false
	}
	return res.Content[0].Text == text
}

// helperGrace bounds the wait for the helpers a run left to go.
const helperGrace = 5 * time.Second
