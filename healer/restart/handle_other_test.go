//go:build unix && !linux

package restart

import "context"

// handleOpeners are the ways this platform signals a host: the checked pid.
func handleOpeners() map[string]func(context.Context, Process) (handle, error) {
	return map[string]func(context.Context, Process) (handle, error){"checked": openChecked}
}
