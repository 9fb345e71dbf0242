//go:build unix

package restart_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/shirou/gopsutil/v4/process"

	"github.com/mcpwatchdog/watchdog/healer/restart"
)

// The stand-in host is testdata/standin, built once per test run. It
// prints "standin pid=N pgid=G port=P args=[...]" when it starts, "got
// SIGTERM, exiting" (or ", ignoring it" in stubborn mode) when asked to
// stop, and answers each connection to its port with "standin N".

// buildStandIn compiles the stand-in into a temporary directory.
func buildStandIn(t *testing.T) string {
	t.Helper()
	exe := filepath.Join(t.TempDir(), "standin")
	cmd := exec.Command("go", "build", "-o", exe, "./testdata/standin")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the stand-in host: %v\n%s", err, out)
	}
	return exe
}

// standInEnv is the environment for a stand-in; stubborn ones ignore SIGTERM.
func standInEnv(stubborn bool) []string {
	env := append(os.Environ(), "STANDIN_LIFETIME=2m")
	if stubborn {
		env = append(env, "STANDIN_MODE=stubborn")
	}
	return env
}

// oldHost is a stand-in the test started itself, as the host the
// Restarter is to replace. The test is its parent and reaps it.
type oldHost struct {
	pid    int32
	port   int
	out    string // its output file
	exited chan struct{}
	state  *os.ProcessState // set before exited closes
}

func startOldHost(t *testing.T, exe string, stubborn bool) *oldHost {
	t.Helper()
	h := &oldHost{out: filepath.Join(t.TempDir(), "old.log"), exited: make(chan struct{})}
	f, err := os.Create(h.out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd := exec.Command(exe, "old")
	cmd.Env = standInEnv(stubborn)
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	h.pid = int32(cmd.Process.Pid)
	go func() {
		_ = cmd.Wait()
		h.state = cmd.ProcessState
		close(h.exited)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-h.exited
	})
	h.port = waitStandInLine(t, h.out, int(h.pid)).port
	return h
}

// identity is the old host's pid and start time, as the process watcher
// would report them.
func (h *oldHost) identity(t *testing.T) restart.Process {
	t.Helper()
	return identityOf(t, int(h.pid))
}

// identityOf reads pid's start time the way monitor/proc does.
func identityOf(t *testing.T, pid int) restart.Process {
	t.Helper()
	ms, err := (&process.Process{Pid: int32(pid)}).CreateTime()
	if err != nil {
		t.Fatalf("start time of pid %d: %v", pid, err)
	}
	return restart.Process{PID: int32(pid), Started: time.UnixMilli(ms)}
}

func (h *oldHost) running() bool {
	select {
	case <-h.exited:
		return false
	default:
		return true
	}
}

// waitExit waits for the old host to exit and returns how it ended.
func (h *oldHost) waitExit(t *testing.T) syscall.WaitStatus {
	t.Helper()
	select {
	case <-h.exited:
		return h.state.Sys().(syscall.WaitStatus)
	case <-time.After(30 * time.Second):
		t.Fatalf("old host %d did not exit", h.pid)
		return 0
	}
}

// standInLine is a stand-in's start line.
type standInLine struct {
	pid, pgid, port int
	args            []string
}

// waitStandInLine polls file for the start line of pid.
func waitStandInLine(t *testing.T, file string, pid int) standInLine {
	t.Helper()
	var found standInLine
	waitUntil(t, fmt.Sprintf("stand-in %d to start in %s", pid, file), func() bool {
		var ok bool
		found, ok = findStandInLine(t, file, pid)
		return ok
	})
	return found
}

func findStandInLine(t *testing.T, file string, pid int) (standInLine, bool) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		return standInLine{}, false
	}
	prefix := fmt.Sprintf("standin pid=%d pgid=", pid)
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, prefix) {
			continue
		}
		var l standInLine
		if _, err := fmt.Sscanf(line, "standin pid=%d pgid=%d port=%d", &l.pid, &l.pgid, &l.port); err != nil {
			t.Fatalf("stand-in line %q: %v", line, err)
		}
		_, args, _ := strings.Cut(line, " args=") // JSON to the end of the line
		if err := json.Unmarshal([]byte(args), &l.args); err != nil {
			t.Fatalf("stand-in args %q: %v", args, err)
		}
		return l, true
	}
	return standInLine{}, false
}

// askPort connects to a stand-in's port and returns its answer.
func askPort(port int) (string, error) {
	c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), 5*time.Second)
	if err != nil {
		return "", err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	line, err := bufio.NewReader(c).ReadString('\n')
	return strings.TrimSpace(line), err
}

// wantAnswers checks that pid's stand-in answers on port.
func wantAnswers(t *testing.T, port, pid int) {
	t.Helper()
	got, err := askPort(port)
	if err != nil {
		t.Fatalf("port %d of host %d: %v", port, pid, err)
	}
	if want := fmt.Sprintf("standin %d", pid); got != want {
		t.Fatalf("port %d answered %q, want %q", port, got, want)
	}
}

// killDetached ends a host the Restarter started and waits until it is
// gone entirely: not even a zombie, which the Restarter's reaper (still
// running when this cleanup runs) must have collected.
func killDetached(t *testing.T, pid int) {
	t.Helper()
	_ = syscall.Kill(pid, syscall.SIGKILL)
	waitUntil(t, fmt.Sprintf("host %d to die and be reaped", pid), func() bool {
		return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
	})
}

// waitUntil polls cond until it holds or a generous deadline passes.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitFileContains polls until file holds text.
func waitFileContains(t *testing.T, file, text string) {
	t.Helper()
	waitUntil(t, fmt.Sprintf("%q in %s", text, file), func() bool {
		b, _ := os.ReadFile(file)
		return bytes.Contains(b, []byte(text))
	})
}

// logBuffer collects a Restarter's log for assertions; its goroutines may
// write while the test reads.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func (b *logBuffer) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(b, &slog.HandlerOptions{Level: slog.LevelDebug}))
}
