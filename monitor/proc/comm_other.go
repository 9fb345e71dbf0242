//go:build !linux

package proc

import (
	"context"

	"github.com/shirou/gopsutil/v4/process"
)

// comm is the kernel's name of p ("" when unreadable).
func comm(ctx context.Context, p *process.Process) string {
	name, err := p.NameWithContext(ctx)
	if err != nil {
		return ""
	}
	return name
}
