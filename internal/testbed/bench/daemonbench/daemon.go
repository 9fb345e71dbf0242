package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/control"
)

type bench struct {
	bin, dir string
	stderr   io.Writer     // the daemons' stderr; nil: this process's
	settle   time.Duration // before an idle window
	// heldSettle is proxyheld's wait after the start, and after the
	// sessions are open and the host's connections closed, before RSS is
	// read: the proxy's connection goroutines end, the runtime scavenges.
	heldSettle time.Duration
	env        []string // more of the daemon's environment (proxyab's variants)
}

type daemon struct {
	cmd     *exec.Cmd
	journal string
	offset  int64
}

func (b *bench) start(ctx context.Context, config string) (*daemon, error) {
	state := filepath.Join(b.dir, "state")
	cfg := filepath.Join(b.dir, "config.toml")
	if err := os.WriteFile(cfg, []byte(config), 0o600); err != nil {
		return nil, err
	}
	env, err := b.homeEnv()
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, b.bin, "run", "--headless", "--config", cfg, "--state-dir", state)
	cmd.Env = append(append(append(os.Environ(), env...), "WATCHDOG_LOG=warn"), b.env...)
	cmd.Stderr = os.Stderr
	if b.stderr != nil {
		cmd.Stderr = b.stderr
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	d := &daemon{cmd: cmd, journal: filepath.Join(state, "events.jsonl")}
	if _, err := d.next(ctx, "started", 20*time.Second); err != nil {
		d.stop()
		return nil, err
	}
	// The control socket answers once the logs are positioned: lines
	// written from then on are live, not history.
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		sctx, cancel := context.WithTimeout(ctx, time.Second)
		_, err := control.Dial(filepath.Join(state, "watchdog.sock")).Status(sctx)
		cancel()
		if err == nil {
			return d, nil
		}
		if time.Now().After(deadline) {
			d.stop()
			return nil, fmt.Errorf("the daemon's control socket never answered: %w", err)
		}
	}
}

// homeEnv gives the daemon a home and XDG directories of its own under
// b.dir: what it finds in this machine's home (hosts' configs, a client
// module to patch) is no part of what a row measures.
func (b *bench) homeEnv() ([]string, error) {
	home := filepath.Join(b.dir, "home")
	vars := [][2]string{{"HOME", home}, {"XDG_CONFIG_HOME", ".config"}, {"XDG_DATA_HOME", ".local/share"},
		{"XDG_STATE_HOME", ".local/state"}, {"XDG_CACHE_HOME", ".cache"}, {"XDG_RUNTIME_DIR", "run"}}
	env := make([]string, len(vars))
	for i, v := range vars {
		dir := v[1]
		if v[0] != "HOME" {
			dir = filepath.Join(home, v[1])
		}
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, err
		}
		env[i] = v[0] + "=" + dir
	}
	return env, nil
}

func (d *daemon) stop() {
	_ = d.cmd.Process.Signal(syscall.SIGTERM)
	_ = d.cmd.Wait()
}

// next waits for the next journal event of kind and returns its time.
func (d *daemon) next(ctx context.Context, kind string, timeout time.Duration) (time.Time, error) {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		if t, ok, err := d.scan(kind); err != nil || ok {
			return t, err
		}
		time.Sleep(200 * time.Microsecond)
	}
	return time.Time{}, fmt.Errorf("no %s event within %s", kind, timeout)
}

func (d *daemon) scan(kind string) (time.Time, bool, error) {
	f, err := os.Open(d.journal)
	if os.IsNotExist(err) {
		return time.Time{}, false, nil
	}
	if err != nil {
		return time.Time{}, false, err
	}
	defer f.Close()
	if _, err := f.Seek(d.offset, 0); err != nil {
		return time.Time{}, false, err
	}
	r := bufio.NewReader(f)
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			return time.Time{}, false, nil // partial or none: wait
		}
		d.offset += int64(len(line))
		var ev struct{ Time, Kind string }
		if json.Unmarshal(line, &ev) != nil || ev.Kind != kind {
			continue
		}
		t, err := time.Parse(time.RFC3339Nano, ev.Time)
		return t, true, err
	}
}

func appendLine(path, line string) (time.Time, error) {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return time.Time{}, err
	}
	defer f.Close()
	t := time.Now()
	_, err = f.WriteString(line + "\n")
	return t, err
}

func percentiles(ds []time.Duration) (p50, p99 time.Duration) {
	slices.Sort(ds)
	at := func(q float64) time.Duration { return ds[min(len(ds)-1, int(q*float64(len(ds))))] }
	return at(0.50), at(0.99)
}

// clkTck is USER_HZ on Linux: /proc counts CPU time in these ticks.
const clkTck = 100

// procStats reads a process's CPU time (user+system) and RSS from /proc.
func procStats(pid int) (cpu time.Duration, rssKB int64, err error) {
	fields, err := statFields(pid)
	if err != nil {
		return 0, 0, err
	}
	utime, _ := strconv.ParseInt(fields[11], 10, 64)
	stime, _ := strconv.ParseInt(fields[12], 10, 64)
	cpu = time.Duration(utime+stime) * time.Second / clkTck
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, err
	}
	rssKB = statusField(status, "VmRSS:")
	return cpu, rssKB, nil
}

// childrenCPU is the CPU time (user+system) of pid's children that ended
// and were waited for, from /proc/PID/stat (10 ms ticks).
func childrenCPU(pid int) (time.Duration, error) {
	fields, err := statFields(pid)
	if err != nil {
		return 0, err
	}
	cutime, _ := strconv.ParseInt(fields[13], 10, 64)
	cstime, _ := strconv.ParseInt(fields[14], 10, 64)
	return time.Duration(cutime+cstime) * time.Second / clkTck, nil
}

// majorFaults is how many of pid's page faults read the page from disk:
// the binary's code or a file's page the kernel had let go of. On a
// machine that reclaims memory nobody touched for a while (a VM host's
// proactive reclaim), an idle daemon's code comes back this way, and the
// idle rows' CPU carries it.
func majorFaults(pid int) (int64, error) {
	fields, err := statFields(pid)
	if err != nil {
		return 0, err
	}
	return strconv.ParseInt(fields[9], 10, 64)
}

// stolenCPU is the machine's steal time so far, all CPUs together: time
// its hypervisor ran something else while a CPU of it had work. A window
// with much of it measured the host, not the daemon.
func stolenCPU() (time.Duration, error) {
	stat, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, err
	}
	line, _, _ := strings.Cut(string(stat), "\n")
	f := strings.Fields(line) // cpu user nice system idle iowait irq softirq steal ...
	if len(f) < 9 || f[0] != "cpu" {
		return 0, fmt.Errorf("/proc/stat: its first line %q has no steal column", line)
	}
	steal, err := strconv.ParseInt(f[8], 10, 64)
	return time.Duration(steal) * time.Second / clkTck, err
}

// statFields is /proc/PID/stat's fields after the command's name (which
// may hold spaces): state [0], majflt [9], utime [11], stime [12],
// cutime [13], cstime [14].
func statFields(pid int) ([]string, error) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil, err
	}
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+2:]))
	if len(fields) < 15 {
		return nil, fmt.Errorf("/proc/%d/stat: %d fields after the name, want 15 or more", pid, len(fields))
	}
	return fields, nil
}

// statusField reads the number of one "Name:  N [kB]" line of /proc/PID/status.
func statusField(status []byte, field string) int64 {
	for _, l := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(l, field); ok {
			if f := strings.Fields(v); len(f) > 0 {
				n, _ := strconv.ParseInt(f[0], 10, 64)
				return n
			}
		}
	}
	return 0
}

// rssSplit is resident memory by kind: anon (heap, stacks: what the
// daemon allocates) and file (pages of the binary and libraries mapped
// from the page cache, shared and reclaimable).
func rssSplit(pid int) (anonKB, fileKB int64, err error) {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, err
	}
	return statusField(status, "RssAnon:"), statusField(status, "RssFile:"), nil
}
