package stdio

import "syscall"

// yield gives this CPU to another task queued on it: a spinning relay
// must not keep the very process it waits for from running (the kernel
// often wakes a pipe's reader on its writer's CPU).
func yield() { _, _, _ = syscall.RawSyscall(syscall.SYS_SCHED_YIELD, 0, 0, 0) }
