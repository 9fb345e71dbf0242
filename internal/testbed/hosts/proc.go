package hosts

import (
	"fmt"
	"os/exec"
	"syscall"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/testbed/tailbuf"
)

// Proc is a running real host: its process, and what it printed.
type Proc struct {
	cmd    *exec.Cmd
	out    *tailbuf.Buffer // stdout and stderr
	exited chan struct{}
	err    error // Wait's, once exited is closed
}

// startProc starts cmd with its stdout and stderr kept.
func startProc(cmd *exec.Cmd) (*Proc, error) {
	d := &Proc{cmd: cmd, out: &tailbuf.Buffer{Max: 1 << 20}, exited: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = d.out, d.out
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("hosts: start %s: %w", cmd.Path, err)
	}
	go func() {
		d.err = cmd.Wait()
		close(d.exited)
	}()
	return d, nil
}

// Pid is the host's process id.
func (d *Proc) Pid() int { return d.cmd.Process.Pid }

// Output is what the host printed so far (stdout and stderr).
func (d *Proc) Output() string { return d.out.String() }

// Exited is closed once the host has exited.
func (d *Proc) Exited() <-chan struct{} { return d.exited }

// Wait waits up to within for the host to exit and returns how it ended.
func (d *Proc) Wait(within time.Duration) error {
	select {
	case <-d.exited:
		return d.err
	case <-time.After(within):
		return fmt.Errorf("hosts: the host is still running after %v", within)
	}
}

// Stop ends the host: SIGTERM, then SIGKILL after 10 s (DSH's own
// shutdown grace is 5 s). Safe to call after it exited.
func (d *Proc) Stop() {
	select {
	case <-d.exited:
		return
	default:
	}
	_ = d.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-d.exited:
	case <-time.After(10 * time.Second):
		_ = d.cmd.Process.Kill()
		<-d.exited
	}
}
