package proc

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The test binary doubles as the stand-in host: with standInEnv set it runs
// a small program instead of the tests.
const standInEnv = "WATCHDOG_PROC_STAND_IN"

func TestMain(m *testing.M) {
	switch os.Getenv(standInEnv) {
	case "":
		os.Exit(m.Run())
	case "listen":
		os.Exit(runListener())
	case "findself":
		os.Exit(runFindSelf())
	}
	os.Exit(99)
}

// runListener listens on a loopback port, prints it, and lives until its
// stdin closes (or it is killed), so a dead test never leaves it behind.
func runListener() int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer ln.Close()
	fmt.Println(ln.Addr().(*net.TCPAddr).Port)
	_, _ = io.Copy(io.Discard, os.Stdin)
	return 0
}

// runFindSelf looks for its own last argument, which only it runs as, and
// prints whether Find returned anything.
func runFindSelf() int {
	_, found, err := Find(context.Background(), Target{Name: os.Args[len(os.Args)-1]})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println("found=" + strconv.FormatBool(found))
	return 0
}

// standIn is a running stand-in host.
type standIn struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	port  int
}

// startStandIn runs the test binary as a listening host: exe is the path
// executed (its base becomes the process name), argv its command line.
func startStandIn(t *testing.T, exe string, argv ...string) *standIn {
	t.Helper()
	cmd := exec.Command(exe)
	cmd.Args = argv
	cmd.Env = append(os.Environ(), standInEnv+"=listen")
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
	s := &standIn{cmd: cmd, stdin: stdin}
	t.Cleanup(s.kill)
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("stand-in printed no port: %v", err)
	}
	if s.port, err = strconv.Atoi(strings.TrimSpace(line)); err != nil {
		t.Fatalf("stand-in port %q: %v", line, err)
	}
	return s
}

func (s *standIn) pid() int32 { return int32(s.cmd.Process.Pid) }

// kill ends the stand-in and reaps it, so no zombie keeps its pid.
func (s *standIn) kill() {
	if s.cmd.ProcessState != nil {
		return
	}
	_ = s.cmd.Process.Kill()
	_ = s.stdin.Close()
	_ = s.cmd.Wait()
}

// testExe is the running test binary, absolute.
func testExe(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// namedExe links the test binary under a new base name, which the kernel
// then reports as the process name of what runs from it.
func namedExe(t *testing.T, name string) string {
	t.Helper()
	link := filepath.Join(t.TempDir(), name)
	if err := os.Symlink(testExe(t), link); err != nil {
		t.Fatal(err)
	}
	return link
}

// token returns a random word no other process's command line contains.
func token(t *testing.T, prefix string) string {
	t.Helper()
	b := make([]byte, 4)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return prefix + hex.EncodeToString(b)
}

// freePort returns a loopback port nothing listens on (just closed).
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
	return port
}
