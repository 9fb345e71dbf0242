package hosts

import (
	"fmt"
	"slices"
	"testing"
	"time"

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
	return hostRow{name: h.Prof.Name, version: in.version, client: h.clientName,
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
