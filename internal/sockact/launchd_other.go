//go:build !darwin || !cgo

package sockact

import (
	"fmt"
	"os"
	"runtime"
)

// launchd: only a cgo build on macOS can ask launchd for sockets. On macOS
// without cgo a process launchd started (XPC_SERVICE_NAME names its job)
// is told so; elsewhere there is no launchd and nothing to say.
func launchd(names []string) (Set, error) {
	if runtime.GOOS != "darwin" || len(names) == 0 {
		return Set{}, nil
	}
	if job := os.Getenv("XPC_SERVICE_NAME"); job == "" || job == "0" {
		return Set{}, nil
	}
	return Set{}, fmt.Errorf("launchd: %w", ErrNoCgo)
}
