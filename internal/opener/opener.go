// Package opener shows a file in the desktop's default application.
package opener

import (
	"fmt"
	"os/exec"
	"runtime"
)

// Open starts the desktop's opener on path, never through a shell; the
// viewer is reaped when it exits.
func Open(path string) error {
	name := "xdg-open"
	if runtime.GOOS == "darwin" {
		name = "open"
	}
	cmd := exec.Command(name, path)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("open %s with %s: %w", path, name, err)
	}
	go func() { _ = cmd.Wait() }()
	return nil
}
