package hosts

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/testbed/tailbuf"
)

// DSHServerName is the serverName of the one MCP server the rig gives DSH;
// DSH offers its tools to the model as mcp__<serverName>__<tool>.
const DSHServerName = "demo"

// DSHTool is the model-facing name DSH gives the server's tool.
func DSHTool(tool string) string { return "mcp__" + DSHServerName + "__" + tool }

// DSHOptions configure one run of the real DSH host.
type DSHOptions struct {
	// Home is DSH_HOME (and HOME): the profile, sessions and the client's
	// beacons live under it. It must exist.
	Home string
	// Workdir is the directory DSH runs in (its workspace root).
	Workdir string
	// ServerURL is the MCP server's Streamable HTTP URL.
	ServerURL string
	// ModelURL is the stand-in model API's base URL.
	ModelURL string
	// Task is the one task of `dsh --profile headless "task"`.
	Task string
}

// DSH is a running real DSH host.
type DSH struct {
	cmd    *exec.Cmd
	out    *tailbuf.Buffer // stdout and stderr
	exited chan struct{}
	err    error // Wait's, once exited is closed
}

// dshProfile is the headless profile's user patch layer: the one MCP
// server, and the session title's own model call left out (it would ask
// the stand-in model for a title at a moment the test does not drive).
const dshProfile = `# Written by internal/testbed/hosts: one MCP server, no title model call.
- id: session-title-llm
  disabled: true
- insert:
    - id: mcp-%[1]s
      name: '@deepseek-ai/dsh-mcp-client'
      config:
        serverName: %[1]s
        transport: streamable-http
        url: %[2]q
`

// StartDSH boots `dsh --profile headless "task"` on the install: the
// deepseek-official provider pointed at the stand-in model, every tool
// allowed (no approval prompt: nobody is there to answer it), telemetry off.
func StartDSH(in DSHInstall, o DSHOptions) (*DSH, error) {
	profile := filepath.Join(o.Home, "profiles", "headless")
	if err := os.MkdirAll(profile, 0o700); err != nil {
		return nil, fmt.Errorf("dsh: %w", err)
	}
	patch := fmt.Sprintf(dshProfile, DSHServerName, o.ServerURL)
	if err := os.WriteFile(filepath.Join(profile, "cordis.patch.yml"), []byte(patch), 0o600); err != nil {
		return nil, fmt.Errorf("dsh: %w", err)
	}
	cmd := exec.Command(in.Node, in.Bin, "--profile", "headless", o.Task)
	cmd.Dir = o.Workdir
	cmd.Env = dshEnv(in, o)
	d := &DSH{cmd: cmd, out: &tailbuf.Buffer{Max: 1 << 20}, exited: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = d.out, d.out
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("dsh: start %s: %w", in.Bin, err)
	}
	go func() {
		d.err = cmd.Wait()
		close(d.exited)
	}()
	return d, nil
}

// dshEnv is the host's environment: PATH with Node 22 first (DSH's
// plugins spawn `node`), nothing of the caller's DSH or model settings.
func dshEnv(in DSHInstall, o DSHOptions) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "DSH_") || strings.HasPrefix(name, "DEEPSEEK_") ||
			name == "HOME" || name == "PATH" {
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"PATH="+filepath.Dir(in.Node)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"HOME="+o.Home,
		"DSH_HOME="+o.Home,
		"DEEPSEEK_BASE_URL="+o.ModelURL,
		"DEEPSEEK_API_KEY=sk-standin",
		"DSH_PERMISSION_MODE=danger-full-access",
		"DSH_TELEMETRY_DISABLED=1",
	)
}

// Pid is the host's process id.
func (d *DSH) Pid() int { return d.cmd.Process.Pid }

// Output is what the host printed so far (stdout and stderr).
func (d *DSH) Output() string { return d.out.String() }

// Exited is closed once the host has exited.
func (d *DSH) Exited() <-chan struct{} { return d.exited }

// Wait waits up to within for the host to exit and returns how it ended.
func (d *DSH) Wait(within time.Duration) error {
	select {
	case <-d.exited:
		return d.err
	case <-time.After(within):
		return fmt.Errorf("dsh: still running after %v", within)
	}
}

// Stop ends the host: SIGTERM, then SIGKILL after 10 s (DSH's own
// shutdown grace is 5 s). Safe to call after it exited.
func (d *DSH) Stop() {
	select {
	case <-d.exited:
		return
	default:
	}
	_ = d.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-d.exited:
	case <-time.After(10 * time.Second):
		_ = d.cmd.Process.Kill()
		<-d.exited
	}
}
