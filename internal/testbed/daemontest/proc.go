package daemontest

import (
	"context"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/control"
	"github.com/mcpwatchdog/watchdog/internal/testbed/tailbuf"
)

// Proc is a daemon running as a process of its own: the watchdog binary's
// `run --headless`, or a test binary that serves as the daemon.
type Proc struct {
	Cmd    *exec.Cmd
	stderr *tailbuf.Buffer
	exited chan struct{}
}

// Start starts cmd, a daemon serving stateDir, with its stderr kept, and
// waits until it is ready (see WaitReady). The test's cleanup stops it.
func Start(t *testing.T, cmd *exec.Cmd, stateDir string) *Proc {
	t.Helper()
	before := len(Journal(t, stateDir, "started"))
	// Large enough to keep all of it (a goroutine dump included).
	p := &Proc{Cmd: cmd, stderr: &tailbuf.Buffer{Max: 64 << 20}, exited: make(chan struct{})}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = cmd.Wait(); close(p.exited) }()
	t.Cleanup(func() { p.Stop(t) })
	WaitReady(t, stateDir, before)
	return p
}

// WaitReady waits until the daemon of stateDir has journaled its started
// event (more than the before it had) and answers on its control socket.
func WaitReady(t *testing.T, stateDir string, before int) {
	t.Helper()
	WaitFor(t, time.Minute, "the daemon's started event and control socket", func() bool {
		if len(Journal(t, stateDir, "started")) <= before {
			return false
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_, err := control.Dial(control.SocketPath(stateDir)).Status(ctx)
		return err == nil
	})
}

// Exited is closed once the process has exited and been reaped.
func (p *Proc) Exited() <-chan struct{} { return p.exited }

// Stderr is what the process wrote to stderr so far.
func (p *Proc) Stderr() string { return p.stderr.String() }

// Stop ends the process with SIGTERM, failing the test when it does not
// exit within 10 s. A process that has exited is left as it is.
func (p *Proc) Stop(t *testing.T) {
	select {
	case <-p.exited:
		return
	default:
	}
	_ = p.Cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(10 * time.Second):
		_ = p.Cmd.Process.Kill()
		<-p.exited
		t.Errorf("daemon did not stop on SIGTERM; stderr:\n%s", p.Stderr())
	}
}

// Kill ends the process with SIGKILL and waits until it is reaped.
func (p *Proc) Kill() {
	_ = p.Cmd.Process.Kill()
	<-p.exited
}
