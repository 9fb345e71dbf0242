//go:build !linux

package stdio

import "syscall"

// procAttr puts the server in a process group of its own, so it and
// whatever it started can be ended together. macOS has no parent-death
// signal: a server there sees its stdin close when the supervisor dies.
func procAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
