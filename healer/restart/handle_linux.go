package restart

import (
	"context"
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// openHandle opens p for signalling: through a pidfd where the kernel has
// them (Linux 5.3+), else by the checked pid.
func openHandle(ctx context.Context, p Process) (handle, error) {
	h, err := openPidfd(ctx, p)
	if errors.Is(err, errNoPidfd) {
		return openChecked(ctx, p)
	}
	return h, err
}

// errNoPidfd: this kernel (or a seccomp filter) offers no pidfd_open.
var errNoPidfd = errors.New("no pidfd")

// pidfd signals through a pidfd: once its start time is checked, the fd
// can only ever mean that process, so no later reuse of the pid can be
// hit.
type pidfd struct {
	fd  int
	pid int32
}

// openPidfd opens a pidfd for p's pid, then checks the start time: the
// order matters, since after the open the fd cannot change process, and
// a matching start time proves it is p.
func openPidfd(ctx context.Context, p Process) (handle, error) {
	fd, err := unix.PidfdOpen(int(p.PID), 0)
	switch {
	case errors.Is(err, unix.ESRCH):
		return nil, errExited
	case errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EPERM):
		return nil, errNoPidfd
	case err != nil:
		return nil, fmt.Errorf("pidfd_open %d: %w", p.PID, err)
	}
	if err := sameRun(ctx, p); err != nil {
		_ = unix.Close(fd)
		return nil, err
	}
	return &pidfd{fd: fd, pid: p.PID}, nil
}

func (h *pidfd) terminate(context.Context) error { return h.send(unix.SIGTERM) }
func (h *pidfd) kill(context.Context) error      { return h.send(unix.SIGKILL) }
func (h *pidfd) close()                          { _ = unix.Close(h.fd) }

func (h *pidfd) send(sig unix.Signal) error {
	err := unix.PidfdSendSignal(h.fd, sig, nil, 0)
	if errors.Is(err, unix.ESRCH) {
		return errExited
	}
	if err != nil {
		return fmt.Errorf("pidfd_send_signal %d: %w", h.pid, err)
	}
	return nil
}

// gone polls the pidfd without waiting: it is readable once the process
// has exited, zombie or reaped.
func (h *pidfd) gone(context.Context) (bool, error) {
	for {
		fds := []unix.PollFd{{Fd: int32(h.fd), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, 0)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return false, fmt.Errorf("poll pidfd %d: %w", h.pid, err)
		}
		return n > 0, nil
	}
}
