package stdio

import "syscall"

// procAttr puts the server in a process group of its own, so it and
// whatever it started can be ended together, and has the kernel kill it
// when the supervisor dies, even by kill -9.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
