package daemon_test

import (
	"bufio"
	"context"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/healer/stdio"
	"github.com/mcpwatchdog/watchdog/internal/daemon"
	"github.com/mcpwatchdog/watchdog/internal/testbed/daemontest"
)

// The real supervisor (healer/stdio, what `watchdog stdio` runs) of a real
// MCP server over stdio (internal/testbed/stdioserver), its host a pair of
// pipes: a call that crashes the server is journaled as the host saw it
// (the exit, the failed call, the restart), told in one bubble, and the
// status lists the server as healthy again after one restart.
func TestRealStdioSupervisorIsFollowed(t *testing.T) {
	t.Parallel()
	bin := filepath.Join(t.TempDir(), "stdioserver")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/mcpwatchdog/watchdog/internal/testbed/stdioserver").CombinedOutput(); err != nil {
		t.Fatalf("building the test server: %v\n%s", err, out)
	}
	dir := t.TempDir()
	cfg := daemontest.WriteConfig(t, dir, quietConfig)
	state := filepath.Join(dir, "state")
	shown := &shownTitles{}
	startDaemonOpts(t, cfg, state, daemon.Options{Send: shown.send})

	hostIn, toServer := io.Pipe()
	fromServer, hostOut := io.Pipe()
	ran := make(chan struct{})
	go func() {
		defer close(ran)
		_, _ = stdio.Run(context.Background(), stdio.Options{Command: []string{bin}, Server: "filesystem", Host: "opencode",
			StateDir: state, Stdin: hostIn, Stdout: hostOut, Stderr: io.Discard})
		_ = hostOut.Close()
	}()
	answers := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(fromServer)
		for sc.Scan() {
			answers <- sc.Text()
		}
		close(answers)
	}()
	t.Cleanup(func() {
		_ = toServer.Close() // the host goes: the supervisor ends its server and returns
		<-ran
	})
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"opencode","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"crash","arguments":{}}}`,
	} {
		if _, err := io.WriteString(toServer, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	realCrashJournaled(t, state, answers)
	daemontest.WaitFor(t, 10*time.Second, "the crash told", func() bool {
		return slices.ContainsFunc(shown.all(), func(s string) bool { return strings.HasPrefix(s, "opencode: filesystem crashed, restarted in ") })
	})
	daemontest.WaitFor(t, 10*time.Second, "the server healthy again in the status", func() bool {
		srv := stdioServers(t, state)["opencode/filesystem"]
		st, _ := srv["stdio"].(map[string]any)
		return srv["state"] == "healthy" && st["restarts"] == float64(1) && st["failed_calls"] == float64(1)
	})
}

// realCrashJournaled waits for the host's answer to the crashing call and
// checks the journal's lines of that crash.
func realCrashJournaled(t *testing.T, state string, answers <-chan string) {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for got := false; !got; {
		select {
		case a, ok := <-answers:
			if !ok {
				t.Fatal("the supervisor's stdout ended")
			}
			got = strings.Contains(a, `"id":2`) && strings.Contains(a, `"error"`)
		case <-timeout:
			t.Fatal("the crashing call got no error")
		}
	}
	restarted := daemontest.WaitEvent(t, state, "stdio_restarted", 1, 30*time.Second)
	if d := restarted.Str("detail"); restarted.Str("host") != "opencode" || !strings.HasPrefix(d, "opencode: filesystem crashed (exit status 3); restarted in ") ||
		!strings.HasSuffix(d, ", the call in flight (tools/call) failed") {
		t.Errorf("stdio_restarted %v", restarted)
	}
	exited := daemontest.Journal(t, state, "stdio_exited")
	failed := daemontest.Journal(t, state, "stdio_call_failed")
	if len(exited) != 1 || exited[0].Str("exit") != "exit status 3" || exited[0].Str("stderr") == "" {
		t.Errorf("stdio_exited lines %v, want one with its exit and last stderr line", exited)
	}
	if len(failed) != 1 || failed[0].Str("method") != "tools/call" || failed[0].Str("server") != "filesystem" {
		t.Errorf("stdio_call_failed lines %v, want one naming tools/call", failed)
	}
}
