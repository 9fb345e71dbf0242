//go:build !linux

package restart

import "context"

// openHandle opens p for signalling by its checked pid: there are no
// pidfds here.
func openHandle(ctx context.Context, p Process) (handle, error) {
	return openChecked(ctx, p)
}
