//go:build !unix

package restart

import (
	"context"
	"os"
	"os/exec"

	"github.com/shirou/gopsutil/v4/process"
)

// detach does nothing here: without Unix sessions a child already outlives
// its parent.
func detach(*exec.Cmd) {}

// terminate cannot ask politely without Unix signals; it ends the process
// at once, so Result.Killed stays false.
func terminate(pid int32) error { return kill(pid) }

func kill(pid int32) error {
	p, err := os.FindProcess(int(pid))
	if err != nil {
		return os.ErrProcessDone
	}
	defer p.Release()
	return p.Kill()
}

func alive(pid int32) (bool, error) {
	return process.PidExistsWithContext(context.Background(), pid)
}

// track lets go of the host: there are no zombies to reap here.
func (r *Restarter) track(p *os.Process) { _ = p.Release() }
