package daemon

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// startListener starts a process serving a loopback port (the test
// binary, as main_test.go's listenMain) and returns it with its port.
func startListener(t *testing.T) (*exec.Cmd, int) {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "WATCHDOG_DAEMON_TEST_LISTEN=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	port, perr := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || perr != nil {
		t.Fatalf("listener port %q: %v %v", line, err, perr)
	}
	return cmd, port
}

// A server killed and not yet back: the process that served its port is
// gone, and that is a restart as of now (what vanishes meanwhile was taken
// by it, not by idleness), said once, not at every look.
func TestServerProcessGoneIsARestart(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cmd, port := startListener(t)
	p := newServerProcess("http://127.0.0.1:" + strconv.Itoa(port) + "/mcp")
	first, gone := p.started(ctx)
	if first.IsZero() || gone {
		t.Fatal("the serving process was not found")
	}
	if again, _ := p.started(ctx); !again.Equal(first) {
		t.Fatalf("the same process read as started %v, then %v", first, again)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	mark, gone := p.started(ctx)
	if !mark.After(first) || !gone {
		t.Fatalf("after the kill: %v (gone %v), want a restart mark after %v", mark, gone, first)
	}
	time.Sleep(10 * time.Millisecond)
	if again, gone := p.started(ctx); !again.Equal(mark) || !gone {
		t.Fatalf("nobody serving yet: %v, then %v (gone %v); want the one mark", mark, again, gone)
	}
}
