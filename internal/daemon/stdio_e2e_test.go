package daemon_test

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/daemon"
	"github.com/mcpwatchdog/watchdog/internal/proxywire"
	"github.com/mcpwatchdog/watchdog/internal/testbed/daemontest"
)

// fakeSupervisor speaks proxywire as `watchdog stdio` does: it listens on
// STATE_DIR/stdio/<pid>.sock (0600), writes its backlog to each daemon
// that connects, then each report as it is told.
type fakeSupervisor struct {
	pid     int
	ln      net.Listener
	mu      sync.Mutex
	backlog []proxywire.Stdio
	conns   []net.Conn
	linked  chan struct{} // one value per connection taken
}

func startSupervisor(t *testing.T, stateDir string, pid int, backlog ...proxywire.Stdio) *fakeSupervisor {
	t.Helper()
	dir := filepath.Join(stateDir, proxywire.StdioDir)
	mustDo(t, os.MkdirAll(dir, 0o700))
	path := filepath.Join(dir, strconv.Itoa(pid)+".sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	mustDo(t, os.Chmod(path, 0o600))
	s := &fakeSupervisor{pid: pid, ln: ln, backlog: backlog, linked: make(chan struct{}, 8)}
	go s.accept(t)
	t.Cleanup(s.close)
	return s
}

func (s *fakeSupervisor) accept(t *testing.T) {
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		for _, r := range s.backlog {
			s.write(t, c, r)
		}
		s.backlog = nil // what no daemon followed is sent once
		s.conns = append(s.conns, c)
		s.mu.Unlock()
		s.linked <- struct{}{}
	}
}

func (s *fakeSupervisor) write(t *testing.T, c net.Conn, r proxywire.Stdio) {
	r.PID = s.pid
	if r.Time.IsZero() {
		r.Time = time.Now()
	}
	line, err := proxywire.Encode(proxywire.Message{Stdio: &r})
	if err != nil {
		t.Error(err)
		return
	}
	if _, err := c.Write(line); err != nil {
		t.Logf("supervisor %d: %v", s.pid, err)
	}
}

// say sends r to every daemon linked now.
func (s *fakeSupervisor) say(t *testing.T, r proxywire.Stdio) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.conns {
		s.write(t, c, r)
	}
}

func (s *fakeSupervisor) close() {
	_ = s.ln.Close()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.conns {
		_ = c.Close()
	}
}

// deadSocket leaves a socket file nobody listens on, as a supervisor
// killed with kill -9 does.
func deadSocket(t *testing.T, stateDir string, pid int) string {
	t.Helper()
	dir := filepath.Join(stateDir, proxywire.StdioDir)
	mustDo(t, os.MkdirAll(dir, 0o700))
	path := filepath.Join(dir, strconv.Itoa(pid)+".sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	mustDo(t, ln.Close())
	return path
}

// exitedPID is the pid of a process that has ended.
func exitedPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	mustDo(t, cmd.Run())
	return cmd.Process.Pid
}

// The daemon follows the stdio supervisors: the backlog one wrote before
// the daemon came is journaled (and told in one bubble), a dead socket is
// removed, a supervisor that starts later is followed, its live reports
// journaled, and status lists each stdio server by host and name.
func TestStdioSupervisorsAreFollowed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := daemontest.WriteConfig(t, dir, quietConfig)
	state := filepath.Join(dir, "state")
	dead := deadSocket(t, state, exitedPID(t))
	fs := proxywire.Stdio{Host: "opencode", Server: "filesystem"}
	with := func(r proxywire.Stdio, kind string) proxywire.Stdio { r.Kind = kind; return r }
	exited := with(fs, proxywire.StdioExited)
	exited.Exit, exited.Stderr = "signal: killed", "fatal: out of memory"
	failed := with(fs, proxywire.StdioCallFailed)
	failed.Method = "tools/call"
	restarted := with(fs, proxywire.StdioRestarted)
	restarted.Took, restarted.Starts, restarted.Child = 120*time.Millisecond, 2, 4243
	// The sockets are named for live processes, as a supervisor's is for
	// its own: this test's, and init's.
	a := startSupervisor(t, state, os.Getpid(), with(fs, proxywire.StdioStarted), exited, failed, restarted)
	shown := &shownTitles{}
	first := startDaemonOpts(t, cfg, state, daemon.Options{Send: shown.send})

	backlogJournaled(t, state, a.pid)
	daemontest.WaitFor(t, 10*time.Second, "the dead socket removed", func() bool {
		_, err := os.Lstat(dead)
		return os.IsNotExist(err)
	})
	daemontest.WaitFor(t, 10*time.Second, "the crash told", func() bool {
		return slices.Contains(shown.all(), "opencode: filesystem crashed, restarted in 120 ms")
	})
	laterSupervisorFollowed(t, state, a)

	// A new daemon hears no backlog (the first heard it all): it reads the
	// journal back, and lists each supervisor again once it links to it.
	first.stop(t)
	startDaemonOpts(t, cfg, state, daemon.Options{Send: shown.send})
	var servers map[string]map[string]any
	daemontest.WaitFor(t, 10*time.Second, "both supervisors linked again", func() bool {
		servers = stdioServers(t, state)
		return servers["opencode/filesystem"]["state"] == "healing" && servers["opencode/git"]["state"] == "down"
	})
	checkStdioServer(t, servers["opencode/filesystem"], "healing", map[string]float64{"exits": 2, "restarts": 1, "failed_calls": 1,
		"pid": 4243, "supervisors": 1})
	if n := len(daemontest.Journal(t, state, "stdio_exited")); n != 2 {
		t.Errorf("%d stdio_exited lines after the restart, want still 2", n)
	}
}

// backlogJournaled checks the journal lines of a supervisor's backlog.
func backlogJournaled(t *testing.T, state string, pid int) {
	t.Helper()
	line := daemontest.WaitEvent(t, state, "stdio_restarted", 1, 10*time.Second)
	want := "opencode: filesystem crashed (signal: killed); restarted in 120 ms, the call in flight (tools/call) failed"
	if line.Str("host") != "opencode" || line.Str("server") != "filesystem" || line.Str("detail") != want ||
		line["took_ms"] != float64(120) || line["supervisor_pid"] != float64(pid) {
		t.Errorf("stdio_restarted line %v, want host opencode, server filesystem, took_ms 120, detail %q", line, want)
	}
	for _, kind := range []string{"stdio_exited", "stdio_call_failed"} {
		if got := daemontest.Journal(t, state, kind); len(got) != 1 || got[0].Str("host") != "opencode" || got[0].Str("detail") == "" {
			t.Errorf("%s lines %v, want one with its host and detail", kind, got)
		}
	}
}

// laterSupervisorFollowed starts a supervisor once the daemon runs, and
// checks its live reports and a's are journaled and the status lists both.
func laterSupervisorFollowed(t *testing.T, state string, a *fakeSupervisor) {
	t.Helper()
	with := func(r proxywire.Stdio, kind string) proxywire.Stdio { r.Kind = kind; return r }
	b := startSupervisor(t, state, 1)
	<-b.linked
	git := proxywire.Stdio{Host: "opencode", Server: "git", Child: 5151, Starts: 1}
	b.say(t, with(git, proxywire.StdioStarted))
	b.say(t, with(git, proxywire.StdioHung))
	hung := daemontest.WaitEvent(t, state, "stdio_hung", 1, 10*time.Second)
	if hung.Str("host") != "opencode" || hung.Str("server") != "git" || hung.Str("detail") == "" {
		t.Errorf("stdio_hung line %v", hung)
	}
	a.say(t, proxywire.Stdio{Kind: proxywire.StdioExited, Host: "opencode", Server: "filesystem"})
	daemontest.WaitEvent(t, state, "stdio_exited", 2, 10*time.Second)

	servers := stdioServers(t, state)
	checkStdioServer(t, servers["opencode/filesystem"], "healing", map[string]float64{"exits": 2, "restarts": 1, "failed_calls": 1, "pid": 4243})
	checkStdioServer(t, servers["opencode/git"], "down", map[string]float64{"exits": 0, "starts": 1, "pid": 5151})
}

// stdioServers are the status's stdio servers by host/name.
func stdioServers(t *testing.T, state string) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	list, _ := status(t, state)["servers"].([]any)
	for _, s := range list {
		srv, _ := s.(map[string]any)
		if srv["transport"] != "stdio" {
			continue
		}
		st, _ := srv["stdio"].(map[string]any)
		host, _ := st["host"].(string)
		name, _ := srv["name"].(string)
		out[host+"/"+name] = srv
	}
	return out
}

func checkStdioServer(t *testing.T, srv map[string]any, state string, want map[string]float64) {
	t.Helper()
	if srv == nil {
		t.Fatalf("status lists no such stdio server")
	}
	st, _ := srv["stdio"].(map[string]any)
	if srv["state"] != state {
		t.Errorf("%s: state %v, want %s", srv["name"], srv["state"], state)
	}
	for k, v := range want {
		if st[k] != v && !(v == 0 && st[k] == nil) {
			t.Errorf("%s: %s = %v, want %v (%v)", srv["name"], k, st[k], v, st)
		}
	}
}
