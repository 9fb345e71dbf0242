package restart

import "context"

// handleOpeners are the ways Linux signals a host: a pidfd, and the
// checked pid used when the kernel has no pidfd.
func handleOpeners() map[string]func(context.Context, Process) (handle, error) {
	return map[string]func(context.Context, Process) (handle, error){"pidfd": openPidfd, "checked": openChecked}
}
