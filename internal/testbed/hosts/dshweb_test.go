package hosts

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/healer/restart"
	"github.com/mcpwatchdog/watchdog/internal/mask"
	"github.com/mcpwatchdog/watchdog/internal/testbed/daemontest"
)

// webIdle is the server's idle timeout in the dsh web test: the first
// host's chat must land before its session expires. Measured here from
// the session's start to that call: 0.2 to 0.6 s, idle or busy.
const webIdle = 5 * time.Second

// The watchdog's last resort on the real host: `dsh web` (unpatched, so
// nothing else heals it) holds a session, used by a chat with a tool call,
// that the server then expires; the watchdog stops it (SIGTERM) and starts
// `dsh web` again from its restart command, and the new DSH's client opens
// a new session: recovered by host_restart. The restarted host's tools
// then work: a chat submitted to it through its own web API has the model
// call the echo tool, which comes back and ran once, on a session the
// restarted host opened.
func TestDSHWebRestartedAsLastResort(t *testing.T) {
	t.Parallel()
	r, w, p, workdir := startDSHWeb(t)
	// Both chats go to one workspace, as a user's would.
	const before = "before the loss"
	if session, res, ok := r.WebCall(workdir, before); !ok {
		t.Fatalf("the first host's chat (session %s) handed back %q; want the echo %q", session, res.Content, before)
	}
	up := daemontest.WaitEvent(t, w.State, "host_up", 1, bootWithin)
	if pid, _ := up["pid"].(float64); int(pid) != p.Pid() {
		t.Fatalf("host_up = %v; want the real host's pid %d", up, p.Pid())
	}
	daemontest.WaitEvent(t, w.State, "session_lost", 1, lossWithin)
	rec := daemontest.WaitEvent(t, w.State, "recovered", 1, bootWithin)
	if rec.Str("strategy") != "host_restart" {
		t.Errorf("recovered = %v; want strategy host_restart", rec)
	}
	if err := p.Wait(10 * time.Second); err != nil {
		t.Errorf("the first host, stopped by the watchdog: %v; want it ended by SIGTERM with exit 0", err)
	}
	again := daemontest.WaitEvent(t, w.State, "host_restarted", 1, 20*time.Second)
	if again["pid"] == up["pid"] || again["pid"] == nil {
		t.Errorf("host_restarted = %v; want the new host's pid, not %v", again, up["pid"])
	}
	if n := r.Started(dshClient); n < 2 {
		t.Errorf("the server started %d sessions of the host; want a new one from the restarted host", n)
	}

	// The restarted host is not the test's child: its output goes to the
	// watchdog's host log.
	r.Host = nil
	r.HostOutput = func() string {
		b, _ := os.ReadFile(filepath.Join(w.State, restart.HostLogFile))
		return string(b)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the restarted host's output:\n%s", r.HostOutput())
		}
	})
	const text = "after the restart"
	session, res, ok := r.WebCall(workdir, text)
	if !ok {
		t.Errorf("the restarted host's chat (session %s) handed back %q; want the echo %q", session, res.Content, text)
	}
	ran := r.RanOn(text)
	if len(ran) != 1 {
		t.Fatalf("the server ran the call %d times; want once", len(ran))
	}
	lost := r.SessionsOf(dshClient)[0]
	if used := r.RanOn(before); !slices.Equal(used, []string{lost}) {
		t.Errorf("the first host's call ran %d times; want once, on the session it then lost (%s)", len(used), mask.ID(lost))
	}
	if ran[0] == lost || !slices.Contains(r.SessionsOf(dshClient)[1:], ran[0]) {
		t.Errorf("the call ran on session %s; want one the restarted host opened, not the lost %s",
			mask.ID(ran[0]), mask.ID(lost))
	}
}

// startDSHWeb starts the rig's server (idle timeout webIdle), a watchdog
// that may restart the host on its own, and the first `dsh web` (unpatched,
// on a private install, in workdir); the test's cleanup stops the hosts
// the watchdog started.
func startDSHWeb(t *testing.T) (r *Rig, w *Watchdog, p *Proc, workdir string) {
	t.Helper()
	r = NewRig(t, GoSDK, webIdle)
	priv, _ := PrivateDSH(t, MustDSH(t), false)
	o := HostOptions{Home: r.Home, Workdir: t.TempDir(), ServerURL: r.Server.url, ModelURL: r.Model.URL()}
	port := strings.TrimPrefix(daemontest.FreePort(t)[len("127.0.0.1"):], ":")
	cmd, err := DSHCommand(priv, o, "web", "web", "--no-open", "--port", port)
	if err != nil {
		t.Fatal(err)
	}
	// The restart runs the same command with the same environment.
	argv := append(append([]string{"/usr/bin/env", "-i"}, cmd.Env...), cmd.Args...)
	// After the watchdog stopped (it restarts no more): the hosts it started.
	t.Cleanup(func() { stopHosts(priv.Command) })
	w = r.StartWatchdog("demo", webIdle, false, fmt.Sprintf("process = %q\nport = 0\nrestart = [%s]\nauto_restart = true",
		filepath.Base(priv.Command), tomlList(argv)))
	p, err = startProc(cmd)
	if err != nil {
		t.Fatal(err)
	}
	r.Host = p
	t.Cleanup(func() {
		p.Stop()
		if t.Failed() {
			t.Logf("the first host's output:\n%s", p.Output())
		}
	})
	return r, w, p, o.Workdir
}

// tomlList is args as a TOML array's items.
func tomlList(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = strconv.Quote(a)
	}
	return strings.Join(q, ", ")
}

// stopHosts ends every process running command (a path unique to the
// test: the hosts the watchdog started are not the test's children):
// SIGTERM, then SIGKILL to what still runs a few seconds later.
func stopHosts(command string) {
	pids := running(command)
	for _, pid := range pids {
		_ = syscall.Kill(pid, syscall.SIGTERM)
	}
	deadline := time.Now().Add(8 * time.Second)
	for _, pid := range pids {
		for time.Now().Before(deadline) && alive(pid) {
			time.Sleep(100 * time.Millisecond)
		}
		if alive(pid) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// running lists the processes whose command line has command as an argument.
func running(command string) []int {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	var pids []int
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, "cmdline"))
		if err != nil {
			continue
		}
		for _, arg := range strings.Split(string(b), "\x00") {
			if arg == command {
				pid, _ := strconv.Atoi(filepath.Base(d))
				pids = append(pids, pid)
				break
			}
		}
	}
	return pids
}

// alive: pid runs and is no zombie.
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	_, after, _ := strings.Cut(string(b), ") ")
	return !strings.HasPrefix(after, "Z")
}
