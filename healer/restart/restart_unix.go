//go:build unix

package restart

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"syscall"
)

// detach puts the host in a session of its own: no controlling terminal,
// and neither a Ctrl-C in the watchdog's terminal nor the watchdog's exit
// reaches it.
func detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
}

func terminate(pid int32) error { return signalPID(pid, syscall.SIGTERM) }
func kill(pid int32) error      { return signalPID(pid, syscall.SIGKILL) }

// signalPID signals one process (never a group: pid is checked positive
// by the caller). A process that is gone reports os.ErrProcessDone.
func signalPID(pid int32, sig syscall.Signal) error {
	err := syscall.Kill(int(pid), sig)
	if errors.Is(err, syscall.ESRCH) {
		return os.ErrProcessDone
	}
	return err
}

// alive reports whether pid runs: it exists (kill 0 succeeds, or is
// refused because another user owns it) and is not a zombie. A zombie has
// exited and only waits for its parent to collect it.
func alive(pid int32) (bool, error) {
	err := syscall.Kill(int(pid), 0)
	switch {
	case errors.Is(err, syscall.ESRCH):
		return false, nil
	case err != nil && !errors.Is(err, syscall.EPERM):
		return false, err
	}
	return !zombie(pid), nil
}

// zombie reads the process state from /proc/PID/stat ("pid (comm) S ...";
// comm may itself hold parentheses, hence the last one). Without procfs
// (macOS) it says no: a zombie then counts as running until its parent
// reaps it, which for a host this Restarter started is at once.
func zombie(pid int32) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(int(pid)) + "/stat")
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return false
	}
	state := b[i+2]
	return state == 'Z' || state == 'X'
}

// track hands a started host to a reaper. Go's handle is released (on
// Linux it holds a pidfd) because the reaper collects the pid itself.
func (r *Restarter) track(p *os.Process) {
	pid := p.Pid
	_ = p.Release()
	if !r.addReaper() {
		return
	}
	go r.reap(pid)
}

// reap collects pid's exit status when it exits, woken by SIGCHLD, so the
// host leaves no zombie behind. It ends then, or when the Restarter
// closes.
func (r *Restarter) reap(pid int) {
	defer r.reapers.Done()
	chld := make(chan os.Signal, 1)
	signal.Notify(chld, syscall.SIGCHLD)
	defer signal.Stop(chld)
	for {
		// Checked after Notify, so an exit before it is not missed.
		var ws syscall.WaitStatus
		got, err := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
		switch {
		case errors.Is(err, syscall.EINTR):
			continue
		case err != nil: // ECHILD: not ours to wait for any more
			r.log.Debug("host reaper ends", "pid", pid, "err", err)
			return
		case got == pid:
			r.log.Info("host exited", "pid", pid, "status", exitStatus(ws))
			return
		}
		select {
		case <-r.ctx.Done():
			return
		case <-chld:
		}
	}
}

func exitStatus(ws syscall.WaitStatus) string {
	if ws.Signaled() {
		return "killed by " + ws.Signal().String()
	}
	return "exit " + strconv.Itoa(ws.ExitStatus())
}
