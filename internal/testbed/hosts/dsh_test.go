package hosts

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/host"
	"github.com/mcpwatchdog/watchdog/internal/mask"
	"github.com/mcpwatchdog/watchdog/internal/testbed/daemontest"
	"github.com/mcpwatchdog/watchdog/internal/testbed/demoserver"
	"github.com/mcpwatchdog/watchdog/monitor/classify"
)

// idle is the server's idle timeout in the DSH rows: short, so a row
// waits seconds for the loss (the server's own end event, not a sleep).
const idle = 2 * time.Second

// dshClient is the clientInfo.name DSH's MCP client sends.
var dshClient = host.DSH().ClientName

// The real DSH host, straight to the server, unpatched: the call after the
// server expired the session fails with the seed's error, and so does
// every later one (STUCK); the server ran none of them.
func TestDSHStuckAfterIdleExpiry(t *testing.T) {
	t.Parallel()
	r := NewRig(t, idle)
	r.StartDSH(MustDSH(t), r.Server.URL())
	callOK(t, r, "before")
	if tools := r.Model.Tools(); !slices.Contains(tools, DSHTool("echo")) {
		t.Fatalf("DSH offered the model %v; want %s among them", tools, DSHTool("echo"))
	}
	r.WaitEnd(dshClient, demoserver.ReasonIdleTimeout)
	for i := 1; i <= 3; i++ {
		text := fmt.Sprintf("after-%d", i)
		res, ok := r.Call(text)
		if ok {
			t.Fatalf("call %d after the loss worked (%q): the real DSH is not stuck", i, res.Content)
		}
		if m, hit := classify.Classify([]byte(res.Content)); !hit || m.Kind != classify.SessionLost {
			t.Errorf("call %d after the loss failed with %q; the watchdog does not read it as a lost session (%v, %v)", i, res.Content, m, hit)
		}
		if n := r.Ran(text); n != 0 {
			t.Errorf("the server ran call %q %d times, want 0", text, n)
		}
	}
	r.Finish()
	if n := r.Started(dshClient); n != 1 {
		t.Errorf("the host opened %d sessions; a stuck host opens none after its first", n)
	}
}

// callOK makes a call that must work and run once on the server.
func callOK(t *testing.T, r *Rig, text string) {
	t.Helper()
	res, ok := r.Call(text)
	if !ok {
		t.Fatalf("call %q: DSH handed back %q, want the echo", text, res.Content)
	}
	if n := r.Ran(text); n != 1 {
		t.Errorf("the server ran call %q %d times, want once", text, n)
	}
}

// The real DSH host through the watchdog's proxy: the server expires the
// session upstream of the proxy, and every call after it works and runs
// once; the journal says the proxy healed it.
func TestDSHThroughTheProxy(t *testing.T) {
	t.Parallel()
	r := NewRig(t, idle)
	w := r.StartWatchdog("demo", idle, true, "process = \"\"\nport = 0")
	r.StartDSH(MustDSH(t), w.ProxyURL(t))
	callOK(t, r, "before")
	r.WaitEnd(dshClient, demoserver.ReasonIdleTimeout)
	for i := 1; i <= 3; i++ {
		callOK(t, r, fmt.Sprintf("after-%d", i))
	}
	r.Finish()
	rec := daemontest.WaitEvent(t, w.State, "recovered", 1, 10*time.Second)
	if rec.Str("source") != "proxy" {
		t.Errorf("recovered = %v; want source proxy", rec)
	}
}

// The real DSH host with the client patch applied to its module in a
// global layout: the call after the server expired the session works, and
// so does every later one, each run once (RECOVERED).
func TestDSHPatchedRecovers(t *testing.T) {
	t.Parallel()
	r := NewRig(t, idle)
	r.StartDSH(r.PatchDSH(MustDSH(t)), r.Server.URL())
	callOK(t, r, "before")
	r.WaitEnd(dshClient, demoserver.ReasonIdleTimeout)
	for i := 1; i <= 3; i++ {
		callOK(t, r, fmt.Sprintf("after-%d", i))
	}
	r.Finish()
	if n := r.Started(dshClient); n != 2 {
		t.Errorf("the host opened %d sessions on the server, want 2 (the patched client's new one after the loss)", n)
	}
}

// The watchdog against the real DSH host, patched: it finds the host's
// process (node running the global install's dsh), reads the beacon the
// real patched client writes (source beacon, the client's own session),
// and on the idle expiry triggers the client's recovery: the client opens
// a new session before any call, and the next call runs on it.
func TestDSHWatchdogHealsTheRealHost(t *testing.T) {
	t.Parallel()
	r := NewRig(t, idle)
	priv := r.PatchDSH(MustDSH(t))
	w := r.StartWatchdog("demo", idle, false,
		fmt.Sprintf("process = %q\nport = 0\nclient_module = %q", filepath.Base(priv.Command), priv.Module))
	r.StartDSH(priv, r.Server.URL())
	callOK(t, r, "before")
	first := r.SessionsOf(dshClient)[0]
	up := daemontest.WaitEvent(t, w.State, "host_up", 1, 20*time.Second)
	if pid, _ := up["pid"].(float64); int(pid) != r.Host.Pid() {
		t.Errorf("host_up = %v; want the real host's pid %d", up, r.Host.Pid())
	}
	lost := daemontest.WaitEvent(t, w.State, "session_lost", 1, lossWithin)
	if lost.Str("source") != "beacon" || lost.Str("session") != mask.ID(first) {
		t.Errorf("session_lost = %v; want source beacon and the client's session %s", lost, mask.ID(first))
	}
	rec := daemontest.WaitEvent(t, w.State, "recovered", 1, lossWithin)
	if rec.Str("strategy") != "client_recovery" || rec.Str("source") != "beacon" {
		t.Errorf("recovered = %v; want strategy client_recovery, source beacon", rec)
	}
	if got := r.SessionsOf(dshClient); len(got) < 2 || rec.Str("new_session") != mask.ID(got[1]) {
		t.Errorf("recovered names new session %s; the server started %v for the host", rec.Str("new_session"), got)
	}
	callOK(t, r, "after")
	r.Finish()
}
