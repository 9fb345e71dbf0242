// Package proc watches the MCP host's process: whether it runs, and whether
// it has been restarted (a new pid or start time). It reports what it sees
// and decides nothing.
//
// It is built to idle cheaply: while a host is known, each interval only
// re-reads that one pid's start time; the whole process table is scanned
// only while no host is known, at most once per interval.
package proc

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/shirou/gopsutil/v4/process"
)

// ErrNoTarget means a Target has neither a name nor a port.
var ErrNoTarget = errors.New("proc: target has neither a process name nor a port")

// Target says how to recognise the host process.
type Target struct {
	// Name is the host's executable or script name (case-sensitive): a
	// process matches when the base of its argv[0] is Name; or argv[0] is
	// an interpreter (node, nodejs, bun, deno, python*, pypy*, sh, bash,
	// dash, zsh, ksh) whose script argument's base is Name, bare or with a
	// script extension (.js .mjs .cjs .ts .mts .cts .py .sh), or whose
	// module (python -m) is Name; or the kernel's name for it (comm, which
	// the kernel cuts to 15 bytes) is Name. Any other argument never
	// counts: `npm install @scope/dsh` or `less ~/.dsh/x` is not dsh.
	// Empty: match by port only.
	Name string
	// Port is a TCP port the host listens on. 0: match by name only.
	Port int
	// Helpers are arguments that mark a process of the host's program
	// that is not the host (Cline's `cline --cline-hub-daemon`): a process
	// with one of them among its arguments never matches by name.
	Helpers []string
}

func (t Target) validate() error {
	if t.Name == "" && t.Port == 0 {
		return ErrNoTarget
	}
	if t.Port < 0 || t.Port > 65535 {
		return fmt.Errorf("proc: port %d out of range", t.Port)
	}
	return nil
}

// Host identifies one run of the host process. A restart gives a new PID or
// a new Started time (pids are reused; the pair is not).
type Host struct {
	PID     int32
	Started time.Time
	// Cmdline is the process's command line. It may carry secrets (tokens
	// passed as flags): do not log it whole.
	Cmdline string
}

// same reports whether h and o are the same run of a process.
func (h Host) same(o Host) bool {
	return h.PID == o.PID && h.Started.Equal(o.Started)
}

// Find looks once for the host process and reports whether it found one.
//
// By name alone (see Target.Name): the oldest match, being the likely
// parent of the others. By port alone:
// the process listening on it. With both: the port's owner when it also
// matches the name; otherwise the best name match, since the port may be
// held by an unrelated process; otherwise the port's owner. The calling
// process never matches itself. A port owned by a process this user cannot
// inspect is not found.
func Find(ctx context.Context, t Target) (Host, bool, error) {
	if err := t.validate(); err != nil {
		return Host{}, false, err
	}
	self := int32(os.Getpid())
	var named []Host
	if t.Name != "" {
		var err error
		if named, err = matchName(ctx, t.Name, t.Helpers, self); err != nil {
			return Host{}, false, err
		}
	}
	if t.Port == 0 || !mayListen(t.Port) {
		return best(named)
	}
	for _, h := range named {
		if listensOn(ctx, h.PID, t.Port) {
			return h, true, nil
		}
	}
	if len(named) > 0 {
		return best(named)
	}
	return portOwner(ctx, t.Port, self)
}

// best picks the oldest, then the lowest pid. Every match is by what the
// process runs, so no match outranks another by how it matched.
func best(hs []Host) (Host, bool, error) {
	if len(hs) == 0 {
		return Host{}, false, nil
	}
	b := slices.MinFunc(hs, func(a, b Host) int {
		if c := a.Started.Compare(b.Started); c != 0 {
			return c
		}
		return int(a.PID - b.PID)
	})
	return b, true, nil
}

// matchName scans the process table for name. Processes that vanish or
// cannot be read mid-scan are skipped.
func matchName(ctx context.Context, name string, helpers []string, self int32) ([]Host, error) {
	pids, err := process.PidsWithContext(ctx)
	if err != nil {
		return nil, fmt.Errorf("proc: list processes: %w", err)
	}
	var out []Host
	for _, pid := range pids {
		if pid == self {
			continue
		}
		if h, ok := matchOne(ctx, pid, name, helpers); ok {
			out = append(out, h)
		}
	}
	return out, ctx.Err()
}

// matchOne reads one process's command line, and its kernel name only
// when the command line does not already match, to keep a scan to few
// reads.
func matchOne(ctx context.Context, pid int32, name string, helpers []string) (Host, bool) {
	// Built directly: process.NewProcess would stat and read each pid first.
	p := &process.Process{Pid: pid}
	args, err := p.CmdlineSliceWithContext(ctx)
	if err != nil || len(args) == 0 {
		// Gone, unreadable, a kernel thread or a zombie: none can be the host.
		return Host{}, false
	}
	if !runsAs(args, name) && !commIs(comm(ctx, p), name) || helper(args, helpers) {
		return Host{}, false
	}
	ms, err := p.CreateTimeWithContext(ctx)
	if err != nil {
		return Host{}, false
	}
	return Host{PID: pid, Started: time.UnixMilli(ms), Cmdline: strings.Join(args, " ")}, true
}

// helper reports whether a process with command line args is one of the
// host's helpers: one of its arguments is one of helpers.
func helper(args, helpers []string) bool {
	for _, a := range args[1:] {
		if slices.Contains(helpers, a) {
			return true
		}
		// Node's process.title may join the whole command line in argv[0].
		for _, h := range helpers {
			if strings.Contains(a, " "+h) {
				return true
			}
		}
	}
	return len(args) == 1 && slices.ContainsFunc(helpers, func(h string) bool { return strings.Contains(args[0], " "+h) })
}

// hostOf describes pid, or reports false when it is gone or unreadable.
func hostOf(ctx context.Context, pid int32) (Host, bool) {
	p := &process.Process{Pid: pid}
	ms, err := p.CreateTimeWithContext(ctx)
	if err != nil {
		return Host{}, false
	}
	cmdline, err := p.CmdlineWithContext(ctx)
	if err != nil {
		return Host{}, false
	}
	return Host{PID: pid, Started: time.UnixMilli(ms), Cmdline: cmdline}, true
}
