//go:build unix

package autostart

import (
	"os"
	"os/exec"
	"syscall"
)

// detach puts the daemon in a session of its own: no controlling
// terminal, and neither a Ctrl-C in the caller's terminal nor its exit
// reaches it.
func detach(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} }

// terminate asks p to end (SIGTERM).
func terminate(p *os.Process) error { return p.Signal(syscall.SIGTERM) }
