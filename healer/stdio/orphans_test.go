//go:build linux

package stdio_test

import (
	"bufio"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// No process outlives its host: when the host closes its end (as a host
// that dies does, kill -9 included) the server and what it started are
// ended, and the supervisor exits.
func TestTheHostGoingEndsEverything(t *testing.T) {
	r := start(t, nil)
	cs := r.client(nil, legacy)
	if _, err := call(t, cs, "child", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	grand := readPids(t, r.pids, "g")
	if len(grand) != 1 || !alive(grand[0]) {
		t.Fatalf("the server's own child: %v", grand)
	}
	_ = r.hostIn.Close()
	select {
	case <-r.done:
		r.done <- 0 // for the cleanup
	case <-time.After(10 * time.Second):
		t.Fatal("the supervisor did not exit within 10 s of its host closing stdin")
	}
	r.noneAlive()
}

// The supervisor killed -9: the kernel kills its server (Linux's parent
// death signal), so no server is left orphaned.
func TestTheSupervisorKilledTakesItsServer(t *testing.T) {
	pids := t.TempDir() + "/pids"
	cmd, in, out := shimProcess(t, "-pids", pids)
	sendInit(t, in)
	if line, err := out.ReadString('\n'); err != nil || !strings.Contains(line, "serverInfo") {
		t.Fatalf("initialize through the supervisor process: %q, %v", line, err)
	}
	server := readPids(t, pids, "")
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	waitFor(t, "the server to die with its supervisor", func() bool { return !alive(server[0]) })
}

// A signal the host sends the supervisor reaches the server; a SIGTERM
// ends it for good (no restart), and the supervisor exits.
func TestASignalIsPassedOnAndNotHealed(t *testing.T) {
	pids := t.TempDir() + "/pids"
	cmd, in, out := shimProcess(t, "-pids", pids)
	defer in.Close()
	sendInit(t, in)
	if _, err := out.ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the supervisor did not exit within 10 s of SIGTERM")
	}
	if n := len(readPids(t, pids, "")); n != 1 {
		t.Errorf("server starts = %d, want 1: a server the host ended is not started again", n)
	}
	waitFor(t, "the server to be gone", func() bool { return !alive(readPids(t, pids, "")[0]) })
}

// Requests from the server to the host (roots, sampling, elicitation)
// and their answers pass through both ways.
func TestServerToHostRequestsPassThrough(t *testing.T) {
	r := start(t, nil)
	cs := r.clientWithRoots(legacy, "file:///projects/a")
	if got, err := call(t, cs, "roots", map[string]any{}); err != nil || got != "file:///projects/a" {
		t.Fatalf("roots through the supervisor: %q, %v", got, err)
	}
}

// shimProcess starts the supervisor as a process of its own over the
// test server with args.
func shimProcess(t *testing.T, args ...string) (*exec.Cmd, *os.File, *bufio.Reader) {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"--", serverBin}, args...)...)
	cmd.Env = append(os.Environ(), shimEnv+"=1")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = &syncBuf{keep: 4096}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	return cmd, in.(*os.File), bufio.NewReaderSize(stdout, 1<<20)
}
