package proc

import (
	"context"
	"os"
	"strconv"
	"strings"

	"github.com/shirou/gopsutil/v4/process"
)

// comm is the kernel's name of p ("" when unreadable). Read from
// /proc/PID/comm: gopsutil's Name parses all of /proc/PID/status, and a
// scan does this for nearly every process.
func comm(_ context.Context, p *process.Process) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(int(p.Pid)) + "/comm")
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(string(b), "\n")
}
