package restart

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/shirou/gopsutil/v4/process"
)

// Process identifies one run of a process: pids are reused, the pair of
// pid and start time is not.
type Process struct {
	PID int32
	// Started is when it started, as gopsutil's CreateTime gives it (what
	// monitor/proc.Host.Started holds), compared at the millisecond as
	// proc.Alive does. Zero: unknown.
	Started time.Time
}

// Why a process is not there to be signalled; isGone matches both.
var (
	errExited = errors.New("it has exited")
	errReused = errors.New("its pid now belongs to another process")
)

func isGone(err error) bool { return errors.Is(err, errExited) || errors.Is(err, errReused) }

// sameRun checks that p's pid still runs p: nil when it does, errExited
// when the pid is free, errReused when another process holds it, another
// error when the process table cannot say.
func sameRun(ctx context.Context, p Process) error {
	ms, err := (&process.Process{Pid: p.PID}).CreateTimeWithContext(ctx)
	if err != nil {
		if exists, perr := process.PidExistsWithContext(ctx, p.PID); perr == nil && !exists {
			return errExited
		}
		return fmt.Errorf("reading the start time of pid %d: %w", p.PID, err)
	}
	if ms != p.Started.UnixMilli() {
		return errReused
	}
	return nil
}

// handle signals one run of a process and sees it end. Its signals fail
// with an error isGone matches, and send nothing, once that run is gone.
type handle interface {
	terminate(ctx context.Context) error
	kill(ctx context.Context) error
	// gone reports whether the run has exited (a zombie has).
	gone(ctx context.Context) (bool, error)
	close()
}

// checked is the handle where no pidfd can be had: it signals the bare
// pid, each time right after checking the pid's start time. A pid reused
// in the microseconds between check and signal would still be hit; a
// pidfd closes that gap.
type checked struct{ p Process }

// openChecked checks p now, so a gone host is known before any signal.
func openChecked(ctx context.Context, p Process) (handle, error) {
	if err := sameRun(ctx, p); err != nil {
		return nil, err
	}
	return checked{p}, nil
}

func (c checked) terminate(ctx context.Context) error { return c.send(ctx, terminate) }
func (c checked) kill(ctx context.Context) error      { return c.send(ctx, kill) }
func (c checked) close()                              {}

func (c checked) send(ctx context.Context, signal func(int32) error) error {
	if err := sameRun(ctx, c.p); err != nil {
		return err
	}
	if err := signal(c.p.PID); errors.Is(err, os.ErrProcessDone) {
		return errExited
	} else if err != nil {
		return err
	}
	return nil
}

func (c checked) gone(ctx context.Context) (bool, error) {
	switch err := sameRun(ctx, c.p); {
	case isGone(err):
		return true, nil
	case err != nil:
		return false, err
	}
	running, err := alive(c.p.PID)
	return !running, err
}
