//go:build !unix

package autostart

import (
	"os"
	"os/exec"
)

// detach does nothing here: without Unix sessions a child already
// outlives its parent.
func detach(*exec.Cmd) {}

// terminate cannot ask politely without Unix signals: it ends p at once.
func terminate(p *os.Process) error { return p.Kill() }
