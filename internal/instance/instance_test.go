package instance

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The test binary doubles as a second process: with helperEnv set it runs
// one Acquire in the given state dir instead of the tests.
const (
	helperEnv      = "WATCHDOG_INSTANCE_HELPER"
	helperStateEnv = "WATCHDOG_INSTANCE_STATE"
)

// helperResult is what the helper process reports on its first stdout line.
type helperResult struct {
	OK        bool   `json:"ok"`
	PID       int    `json:"pid"`
	Message   string `json:"message"`
	IsRunning bool   `json:"is_running"`
	HolderPID int    `json:"holder_pid"`
}

func TestMain(m *testing.M) {
	switch os.Getenv(helperEnv) {
	case "":
		os.Exit(m.Run())
	case "acquire":
		os.Exit(runHelper(os.Getenv(helperStateEnv)))
	case "exit":
		os.Exit(0)
	}
	os.Exit(99)
}

// runHelper tries Acquire, reports the outcome as JSON, and when it got the
// lock holds it until stdin closes.
func runHelper(stateDir string) int {
	l, err := Acquire(stateDir)
	res := helperResult{OK: err == nil, PID: os.Getpid()}
	if err != nil {
		res.Message = err.Error()
		res.IsRunning = errors.Is(err, ErrRunning)
		var re *RunningError
		if errors.As(err, &re) {
			res.HolderPID = re.PID
		}
	}
	b, _ := json.Marshal(res)
	fmt.Println(string(b))
	if err != nil {
		return 1
	}
	_, _ = io.Copy(io.Discard, os.Stdin)
	if err := l.Release(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	return 0
}

// helper is a running helper process.
type helper struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	res   helperResult
}

// startHelper runs Acquire in another process and waits for its report.
func startHelper(t *testing.T, stateDir string) *helper {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"=acquire", helperStateEnv+"="+stateDir)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	h := &helper{cmd: cmd, stdin: stdin}
	t.Cleanup(func() { h.stop(t) })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("helper said nothing: %v", err)
	}
	if err := json.Unmarshal([]byte(line), &h.res); err != nil {
		t.Fatalf("helper report %q: %v", line, err)
	}
	return h
}

// stop closes the helper's stdin (it releases and exits) and reaps it.
func (h *helper) stop(t *testing.T) {
	t.Helper()
	if h.cmd.ProcessState != nil {
		return
	}
	_ = h.stdin.Close()
	done := make(chan error, 1)
	go func() { done <- h.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		_ = h.cmd.Process.Kill()
		<-done
		t.Error("helper did not exit after stdin closed")
	}
}

func TestSecondProcessIsRefusedNamingHolder(t *testing.T) {
	dir := t.TempDir()
	l, err := Acquire(dir)
	if err != nil {
		t.Fatalf("Acquire: %v", err)
	}
	defer l.Release()

	h := startHelper(t, dir)
	if h.res.OK {
		t.Fatal("second process acquired a held lock")
	}
	if !h.res.IsRunning {
		t.Errorf("error %q does not wrap ErrRunning", h.res.Message)
	}
	if h.res.HolderPID != os.Getpid() {
		t.Errorf("RunningError.PID = %d, want %d", h.res.HolderPID, os.Getpid())
	}
	want := fmt.Sprintf("watchdog already running (pid %d)", os.Getpid())
	if h.res.Message != want {
		t.Errorf("message = %q, want %q", h.res.Message, want)
	}

	if err := l.Release(); err != nil {
		t.Fatalf("Release: %v", err)
	}
	h2 := startHelper(t, dir)
	if !h2.res.OK {
		t.Fatalf("after Release a new process was refused: %s", h2.res.Message)
	}
	if got := readPID(t, dir); got != h2.res.PID {
		t.Errorf("pid file = %d, want the new holder %d", got, h2.res.PID)
	}
}

func TestThisProcessIsRefusedWhileAnotherHolds(t *testing.T) {
	dir := t.TempDir()
	h := startHelper(t, dir)
	if !h.res.OK {
		t.Fatalf("helper could not acquire: %s", h.res.Message)
	}
	_, err := Acquire(dir)
	var re *RunningError
	if !errors.As(err, &re) || !errors.Is(err, ErrRunning) {
		t.Fatalf("Acquire = %v, want *RunningError wrapping ErrRunning", err)
	}
	if re.PID != h.res.PID {
		t.Errorf("RunningError.PID = %d, want helper pid %d", re.PID, h.res.PID)
	}

	h.stop(t) // the helper releases and exits
	if _, err := os.Stat(filepath.Join(dir, PIDFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("pid file after the holder released: %v, want not exist", err)
	}
	l, err := Acquire(dir)
	if err != nil {
		t.Fatalf("Acquire after the holder exited: %v", err)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
}

func TestStalePIDFileDoesNotBlock(t *testing.T) {
	dir := t.TempDir()
	dead := deadPID(t)
	// Leftovers of a crashed daemon: its pid file and the lock file it held.
	writeFile(t, filepath.Join(dir, PIDFile), strconv.Itoa(dead)+"\n")
	writeFile(t, filepath.Join(dir, LockFile), "")

	l, err := Acquire(dir)
	if err != nil {
		t.Fatalf("stale pid %d blocked Acquire: %v", dead, err)
	}
	defer l.Release()
	if got := readPID(t, dir); got != os.Getpid() {
		t.Errorf("pid file = %d, want own pid %d", got, os.Getpid())
	}
}

func TestFileModesAndReleaseTwice(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	l, err := Acquire(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		want os.FileMode
	}{
		{"", 0o700},
		{LockFile, 0o600},
		{PIDFile, 0o600},
	} {
		fi, err := os.Stat(filepath.Join(dir, tc.name))
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != tc.want {
			t.Errorf("mode of %q = %o, want %o", tc.name, got, tc.want)
		}
	}
	if err := l.Release(); err != nil {
		t.Fatalf("first Release: %v", err)
	}
	if err := l.Release(); err != nil {
		t.Fatalf("second Release: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, PIDFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("pid file after Release: %v, want not exist", err)
	}
	// No temp files left behind by the atomic write.
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() != LockFile {
			t.Errorf("left in state dir after Release: %s", e.Name())
		}
	}
}

func TestSameProcessSecondAcquireFails(t *testing.T) {
	dir := t.TempDir()
	l, err := Acquire(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	if _, err := Acquire(dir); !errors.Is(err, ErrRunning) {
		t.Fatalf("second Acquire in the same process = %v, want ErrRunning", err)
	}
}

func TestRunningErrorMessage(t *testing.T) {
	tests := []struct {
		pid  int
		want string
	}{
		{1234, "watchdog already running (pid 1234)"},
		{0, "watchdog already running"},
	}
	for _, tc := range tests {
		if got := (&RunningError{PID: tc.pid}).Error(); got != tc.want {
			t.Errorf("PID %d: %q, want %q", tc.pid, got, tc.want)
		}
	}
}

func TestParsePID(t *testing.T) {
	tests := []struct {
		in   string
		want int
		ok   bool
	}{
		{"1234\n", 1234, true},
		{"  42 ", 42, true},
		{"", 0, false},
		{"0", 0, false},
		{"-5", 0, false},
		{"12ab", 0, false},
	}
	for _, tc := range tests {
		got, err := parsePID(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("parsePID(%q) = %d, %v; want %d, ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

func FuzzParsePID(f *testing.F) {
	for _, s := range []string{"1234\n", "", "-1", "99999999999999999999", " 7 "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		pid, err := parsePID(s)
		if err != nil {
			return
		}
		want, aerr := strconv.Atoi(strings.TrimSpace(s))
		if pid <= 0 || aerr != nil || pid != want {
			t.Fatalf("parsePID(%q) = %d, want a positive pid equal to Atoi's %d (%v)", s, pid, want, aerr)
		}
	})
}

// deadPID returns the pid of a process that has exited and been reaped.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"=exit")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

func readPID(t *testing.T, dir string) int {
	t.Helper()
	pid, err := readPIDFile(filepath.Join(dir, PIDFile))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

func writeFile(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
}
