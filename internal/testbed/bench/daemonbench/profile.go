package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/testbed/bench/loadgen"
)

// proxyProfile records where the watchdog's CPU goes while c sessions
// call echo in a loop through its proxy (perf, the process alone, kernel
// included) and writes the report to out: by function, then by caller.
// The binary must carry its symbols (bench-proxy.sh builds such a copy).
func (b *bench) proxyProfile(ctx context.Context, server string, c int, window time.Duration, out string) error {
	p, err := b.startProxied(ctx, server)
	if err != nil {
		return err
	}
	defer p.stop()
	ss, err := loadgen.Open(ctx, loadgen.Client(c), p.url, c, c)
	if err != nil {
		return err
	}
	defer ss.Close(ctx)
	if _, err := ss.Run(ctx, window/4); err != nil {
		return err
	}
	data := out + ".data"
	rec := exec.CommandContext(ctx, "perf", "record", "-F", "2999", "-g", "-o", data, "-p", fmt.Sprint(p.d.cmd.Process.Pid))
	rec.Stderr = os.Stderr
	if err := rec.Start(); err != nil {
		return fmt.Errorf("perf: %w", err)
	}
	time.Sleep(300 * time.Millisecond) // perf attaches
	r, runErr := ss.Run(ctx, window)
	_ = rec.Process.Signal(syscall.SIGINT)
	_ = rec.Wait()
	defer os.Remove(data)
	if runErr != nil {
		return runErr
	}
	head := fmt.Sprintf("CPU profile of the watchdog's proxy: %d sessions calling echo in a loop through it, %s server, %s;\n"+
		"%.0f calls/s. perf record -F 2999 -g of the watchdog's process alone (kernel included), a build with symbols.\n",
		c, server, window, r.PerSecond())
	return writeProfile(out, data, head)
}

// writeProfile writes perf's two views of data to out: each function's
// own share of the samples, then each function's share with what it
// called (Go's and the kernel's).
func writeProfile(out, data, head string) error {
	var buf bytes.Buffer
	buf.WriteString(head)
	for _, view := range []struct {
		title string
		args  []string
	}{
		{"By function (its own samples, at least 0.3 %)", []string{"--no-children", "--percent-limit", "0.3"}},
		{"By function with what it calls (at least 2 %)", []string{"--children", "--percent-limit", "2"}},
	} {
		args := append([]string{"report", "-i", data, "--stdio", "-g", "none", "--sort", "dso,symbol"}, view.args...)
		rep, err := exec.Command("perf", args...).Output()
		if err != nil {
			return fmt.Errorf("perf report: %w", err)
		}
		fmt.Fprintf(&buf, "\n## %s\n\n", view.title)
		sc := bufio.NewScanner(bytes.NewReader(rep))
		for sc.Scan() {
			if l := strings.TrimRight(sc.Text(), " "); l != "" && !strings.HasPrefix(l, "#") {
				buf.WriteString(l + "\n")
			}
		}
	}
	return os.WriteFile(out, buf.Bytes(), 0o644)
}
