package proc

import "context"

// Lookup describes the process now at pid, or reports false when there is
// none or it cannot be read. It says nothing about which run of a program
// that is: a caller holding an older Host compares Started (or asks Alive),
// since pids are reused. A zombie may still be found; Alive rules it out.
func Lookup(ctx context.Context, pid int32) (Host, bool) {
	if pid <= 0 {
		return Host{}, false
	}
	return hostOf(ctx, pid)
}
