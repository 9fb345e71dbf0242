package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/testbed/bench/loadgen"
)

// proxySyscalls counts, per proxied call, the system calls and context
// switches of each proxy (the watchdog's, nginx, HAProxy) in front of one
// server at c concurrent calls: where a proxy's latency goes that a CPU
// profile does not show (waits, wakeups of other threads). Context
// switches and CPU are counted on a window of their own, system calls
// (perf stat on the syscall tracepoints of every thread) on another.
func (b *bench) proxySyscalls(ctx context.Context, server string, c int, window time.Duration) error {
	srv, fronts, stop, err := b.startServerAndFronts(ctx, server)
	defer stop()
	if err != nil {
		return err
	}
	fmt.Printf("System calls and context switches per proxied call, %s server, %d concurrent calls, windows of %s\n\n", server, c, window)
	counts := make([]map[string]float64, len(fronts))
	for i, f := range fronts {
		if counts[i], err = b.countFront(ctx, f, srv, c, window); err != nil {
			return fmt.Errorf("%s: %w", f.name, err)
		}
	}
	printCounts(fronts, counts)
	return nil
}

// startServerAndFronts starts the server and the three frontends before
// it, the watchdog first; stop ends what was started, error or not.
func (b *bench) startServerAndFronts(ctx context.Context, name string) (srv *upstream, fronts []*frontend, stop func(), err error) {
	stop = func() {
		for _, f := range fronts {
			f.stop()
		}
		if srv != nil {
			_ = srv.Close()
		}
	}
	if srv, err = startUpstream(ctx, name); err != nil {
		return nil, nil, stop, err
	}
	for _, start := range []func(context.Context, *upstream) (*frontend, error){
		b.watchdogFrontend,
		func(ctx context.Context, u *upstream) (*frontend, error) { return b.startNginx(ctx, u.URL()) },
		func(ctx context.Context, u *upstream) (*frontend, error) { return b.startHAProxy(ctx, u.URL()) },
	} {
		f, err := start(ctx, srv)
		if err != nil {
			return srv, fronts, stop, err
		}
		fronts = append(fronts, f)
	}
	return srv, fronts, stop, nil
}

// countFront measures one frontend: calls/s, its CPU and the ends' (the
// load generator's and the server's) and context switches per call
// untraced, then system calls per call.
func (b *bench) countFront(ctx context.Context, f *frontend, srv *upstream, c int, window time.Duration) (map[string]float64, error) {
	ss, err := loadgen.Open(ctx, loadgen.Client(c), f.url, c, c)
	if err != nil {
		return nil, err
	}
	defer ss.Close(ctx)
	if _, err := ss.Run(ctx, window/4); err != nil {
		return nil, err
	}
	out := map[string]float64{}
	ends := func() time.Duration { return pidsCPU(os.Getpid(), srv.cmd.Process.Pid) }
	cs0, cpu0, e0 := f.switches(), pidsCPU(f.pids()...), ends()
	r, err := ss.Run(ctx, window)
	if err != nil {
		return nil, err
	}
	calls := float64(r.Calls)
	out["(calls/s untraced)"] = r.PerSecond()
	out["(context switches)"] = float64(f.switches()-cs0) / calls
	out["(CPU µs)"] = float64((pidsCPU(f.pids()...) - cpu0).Microseconds()) / calls
	out["(the ends' CPU µs)"] = float64((ends() - e0).Microseconds()) / calls
	out["(p50 µs)"] = float64(r.Quantile(0.5).Microseconds())
	counted, err := perfSyscalls(ctx, f.pids(), func() (int, error) {
		r, err := ss.Run(ctx, window)
		return r.Calls, err
	})
	if err != nil {
		return nil, err
	}
	maps.Copy(out, counted)
	return out, nil
}

// switches is the context switches of all the frontend's threads so far.
func (f *frontend) switches() int64 {
	var sum int64
	for _, pid := range f.pids() {
		n, _ := contextSwitches(pid)
		sum += n
	}
	return sum
}

// countedSyscalls are the system calls perfSyscalls counts: those a proxy
// makes per call (reads, writes, waits, wakeups) and what would show
// work it need not do (socket options, clocks, yields).
var countedSyscalls = []string{"read", "write", "readv", "writev", "recvfrom", "sendto", "epoll_wait", "epoll_pwait",
	"epoll_ctl", "futex", "nanosleep", "clock_gettime", "setsockopt", "getsockopt", "sched_yield", "splice"}

// perfSyscalls counts the system calls of pids' threads (perf stat on the
// syscall tracepoints: no ptrace stop per call, so the timing stays as it
// is) while run runs, per call it made.
func perfSyscalls(ctx context.Context, pids []int, run func() (int, error)) (map[string]float64, error) {
	args := []string{"stat", "-x", ",", "--no-big-num"}
	for _, name := range countedSyscalls {
		args = append(args, "-e", "syscalls:sys_enter_"+name)
	}
	var ps []string
	for _, pid := range pids {
		ps = append(ps, strconv.Itoa(pid))
	}
	args = append(args, "-p", strings.Join(ps, ","))
	st := exec.CommandContext(ctx, "perf", args...)
	var rep bytes.Buffer
	st.Stderr = &rep
	if err := st.Start(); err != nil {
		return nil, fmt.Errorf("perf: %w", err)
	}
	time.Sleep(300 * time.Millisecond) // perf attaches
	calls, err := run()
	_ = st.Process.Signal(syscall.SIGINT)
	_ = st.Wait()
	if err != nil {
		return nil, err
	}
	out := map[string]float64{}
	sc := bufio.NewScanner(&rep)
	for sc.Scan() {
		// count,unit,event,...
		f := strings.Split(sc.Text(), ",")
		if len(f) < 3 {
			continue
		}
		n, err := strconv.ParseFloat(f[0], 64)
		name, ok := strings.CutPrefix(f[2], "syscalls:sys_enter_")
		if err == nil && ok && n > 0 {
			out[name] = n / float64(max(calls, 1))
		}
	}
	return out, nil
}

func printCounts(fronts []*frontend, counts []map[string]float64) {
	names := map[string]bool{}
	for _, m := range counts {
		for k := range m {
			names[k] = true
		}
	}
	keys := make([]string, 0, len(names))
	for k := range names {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	fmt.Print("| per call |")
	for _, f := range fronts {
		fmt.Printf(" %s |", f.name)
	}
	fmt.Print("\n|---|")
	for range fronts {
		fmt.Print("---|")
	}
	fmt.Println()
	for _, k := range keys {
		fmt.Printf("| %s |", k)
		for _, m := range counts {
			fmt.Printf(" %.2f |", m[k])
		}
		fmt.Println()
	}
	fmt.Fprintln(os.Stderr)
}
