package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

// recording is perf recording the watchdog, or nothing (no -perf).
type recording struct {
	cmd       *exec.Cmd
	data, out string
}

// record starts perf on pid when -perf names a report: where the proxy's
// CPU goes, as a bench artefact. The binary needs its symbols (bench.sh
// builds an unstripped copy for it).
func (b *bench) record(ctx context.Context, pid int) *recording {
	if b.perf == "" {
		return &recording{}
	}
	r := &recording{data: b.perf + ".data", out: b.perf}
	r.cmd = exec.CommandContext(ctx, "perf", "record", "-F", "999", "-g", "-o", r.data, "-p", fmt.Sprint(pid))
	r.cmd.Stdout, r.cmd.Stderr = os.Stderr, os.Stderr
	if err := r.cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "daemonbench: perf not recorded:", err)
		return &recording{}
	}
	return r
}

// stop ends the recording and writes its report (by cumulative time).
func (r *recording) stop() {
	if r.cmd == nil {
		return
	}
	_ = r.cmd.Process.Signal(syscall.SIGINT)
	_ = r.cmd.Wait()
	f, err := os.Create(r.out)
	if err != nil {
		fmt.Fprintln(os.Stderr, "daemonbench: perf report:", err)
		return
	}
	defer f.Close()
	rep := exec.Command("perf", "report", "-i", r.data, "--stdio", "--children", "--no-demangle", "-g", "none", "--percent-limit", "0.5")
	rep.Stdout, rep.Stderr = f, os.Stderr
	if err := rep.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "daemonbench: perf report:", err)
	}
}
