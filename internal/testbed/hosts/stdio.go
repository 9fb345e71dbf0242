package hosts

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/mcpwatchdog/watchdog/internal/demoserver"
	"github.com/mcpwatchdog/watchdog/internal/testbed/repo"
)

// stdioFix names the command that installs what the stdio server needs.
const stdioFix = "run `make deps` (scripts/deps-node.sh: npm ci in testdata/tsservers; node and npm: apt-get install -y nodejs npm)"

// StdioServer is the rig's stdio server: the TypeScript SDK's McpServer
// on stdio with one echo tool (testdata/tsservers/stdio-server.mjs), which
// the host starts itself, as its config says, as often as it likes. Its
// events file is the ground truth: each start's pid, each call it ran.
type StdioServer struct {
	// Argv is the server's command line as the host's config names it:
	// node, the script, the events file (an argument: Codex CLI passes a
	// stdio server only a fixed set of environment variables).
	Argv []string
	// Events is the file each of its processes appends to.
	Events string
}

// NewStdioServer is the installed stdio server, its events in a folder of
// the test's; every process of it still running when the test ends is
// killed then (a host may leave one behind).
func NewStdioServer(t *testing.T) *StdioServer {
	t.Helper()
	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "testdata", "tsservers")
	script := filepath.Join(dir, "stdio-server.mjs")
	sdk := filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("%v: node: %v; %s", ErrMissingDeps, err, stdioFix)
	}
	for _, f := range []string{script, sdk} {
		if _, err := os.Stat(f); err != nil {
			t.Fatalf("%v: the stdio server: %v; %s", ErrMissingDeps, err, stdioFix)
		}
	}
	s := &StdioServer{Events: filepath.Join(t.TempDir(), "stdio-events")}
	s.Argv = []string{node, script, s.Events}
	t.Cleanup(func() {
		for _, pid := range s.Processes() {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	return s
}

// argv is the server's command line; nil for no stdio server.
func (s *StdioServer) argv() []string {
	if s == nil {
		return nil
	}
	return s.Argv
}

// kept says whether the host's config is written before it starts, and
// kept then: a stdio rig's is (its own CLI, or adopt, may have changed it).
func (s *StdioServer) kept() bool { return s != nil }

// stdioEvent is one line of the events file.
type stdioEvent struct {
	kind string // "start" or "call"
	pid  int
	text string // a call's text
}

// events are the server's events so far, in order.
func (s *StdioServer) events() []stdioEvent {
	f, err := os.Open(s.Events)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []stdioEvent
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		kind, rest, _ := strings.Cut(sc.Text(), " ")
		p, text, _ := strings.Cut(rest, " ")
		pid, err := strconv.Atoi(p)
		if err != nil || kind != "start" && kind != "call" {
			continue
		}
		out = append(out, stdioEvent{kind: kind, pid: pid, text: text})
	}
	return out
}

// Starts are the pids of the server's processes, in the order they started.
func (s *StdioServer) Starts() []int {
	var pids []int
	for _, e := range s.events() {
		if e.kind == "start" {
			pids = append(pids, e.pid)
		}
	}
	return pids
}

// Ran counts the echo calls with text the server ran.
func (s *StdioServer) Ran(text string) int {
	n := 0
	for _, e := range s.events() {
		if e.kind == "call" && e.text == text {
			n++
		}
	}
	return n
}

// ErrNoServer: no process of the server is running to be killed.
var ErrNoServer = errors.New("hosts: no stdio server process running")

// KillNewest kills -9 the newest process of the server, if it still runs
// (a pid of the events file whose process still carries the file in its
// command line: never a pid reused by another program). It returns the pid.
func (s *StdioServer) KillNewest() (int, error) {
	starts := s.Starts()
	if len(starts) == 0 || !s.carries(starts[len(starts)-1]) {
		return 0, ErrNoServer
	}
	pid := starts[len(starts)-1]
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		return pid, fmt.Errorf("hosts: kill -9 the stdio server %d: %w", pid, err)
	}
	return pid, nil
}

// Processes are the running processes whose command line carries the
// events file: the server's, and whatever runs it with its command line
// (a supervisor, `watchdog stdio -- node stdio-server.mjs EVENTS`). A
// zombie (killed, not reaped yet) carries nothing.
func (s *StdioServer) Processes() []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err == nil && s.carries(pid) {
			out = append(out, pid)
		}
	}
	return out
}

// carries says whether process pid runs with the events file among its
// arguments (Linux: /proc).
func (s *StdioServer) carries(pid int) bool {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
	return err == nil && slices.Contains(strings.Split(string(b), "\x00"), s.Events)
}

// NewStdioRig is a rig whose server is the stdio server (Stdio), which
// the host runs itself, and the stand-in model. Its host's config names
// the server's command: the host's recipe's stdio twin, or its own CLI's
// mcp add (PrepareCLIHost), written before the host starts.
func NewStdioRig(t *testing.T) *Rig {
	t.Helper()
	r := &Rig{t: t, Home: t.TempDir(), ended: make(chan demoserver.Event, 64), Stdio: NewStdioServer(t)}
	m, err := StartModelAPI()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	r.Model = m
	return r
}
