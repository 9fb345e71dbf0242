package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
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
// switches are counted on a run of its own (strace slows what it traces);
// system calls by strace -c -f attached to every thread.
func (b *bench) proxySyscalls(ctx context.Context, server string, c int, window time.Duration) error {
	srv, err := startUpstream(ctx, server)
	if err != nil {
		return err
	}
	defer srv.Close()
	fronts, err := b.startFronts(ctx, srv)
	defer func() {
		for _, f := range fronts {
			f.stop()
		}
	}()
	if err != nil {
		return err
	}
	fmt.Printf("System calls and context switches per proxied call, %s server, %d concurrent calls, windows of %s\n\n", server, c, window)
	counts := make([]map[string]float64, len(fronts))
	for i, f := range fronts {
		if counts[i], err = b.countFront(ctx, f, c, window); err != nil {
			return fmt.Errorf("%s: %w", f.name, err)
		}
	}
	printCounts(fronts, counts)
	return nil
}

// startFronts starts the three frontends before srv.
func (b *bench) startFronts(ctx context.Context, srv *upstream) ([]*frontend, error) {
	var fronts []*frontend
	for _, start := range []func(context.Context, *upstream) (*frontend, error){
		b.watchdogFrontend,
		func(ctx context.Context, u *upstream) (*frontend, error) { return b.startNginx(ctx, u.URL()) },
		func(ctx context.Context, u *upstream) (*frontend, error) { return b.startHAProxy(ctx, u.URL()) },
	} {
		f, err := start(ctx, srv)
		if err != nil {
			return fronts, err
		}
		fronts = append(fronts, f)
	}
	return fronts, nil
}

// countFront measures one frontend: calls/s and context switches per call
// untraced, then system calls per call under strace.
func (b *bench) countFront(ctx context.Context, f *frontend, c int, window time.Duration) (map[string]float64, error) {
	ss, err := loadgen.Open(ctx, loadgen.Client(c), f.url, c, c)
	if err != nil {
		return nil, err
	}
	defer ss.Close(ctx)
	if _, err := ss.Run(ctx, window/4); err != nil {
		return nil, err
	}
	out := map[string]float64{}
	cs0, cpu0 := f.switches(), pidsCPU(f.pids()...)
	r, err := ss.Run(ctx, window)
	if err != nil {
		return nil, err
	}
	calls := float64(r.Calls)
	out["(calls/s untraced)"] = r.PerSecond()
	out["(context switches)"] = float64(f.switches()-cs0) / calls
	out["(CPU µs)"] = float64((pidsCPU(f.pids()...) - cpu0).Microseconds()) / calls
	out["(p50 µs)"] = float64(r.Quantile(0.5).Microseconds())
	var args []string
	for _, pid := range f.pids() {
		args = append(args, "-p", strconv.Itoa(pid))
	}
	st := exec.CommandContext(ctx, "strace", append([]string{"-c", "-f", "-q", "-o", "/dev/stderr"}, args...)...)
	var rep bytes.Buffer
	st.Stderr = &rep
	if err := st.Start(); err != nil {
		return nil, fmt.Errorf("strace: %w", err)
	}
	time.Sleep(500 * time.Millisecond) // strace attaches
	r, err = ss.Run(ctx, window)
	_ = st.Process.Signal(syscall.SIGINT)
	_ = st.Wait()
	if err != nil {
		return nil, err
	}
	for name, n := range parseStraceC(rep.Bytes()) {
		out[name] = float64(n) / float64(r.Calls)
	}
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

// parseStraceC reads strace -c's table: calls by system call.
func parseStraceC(rep []byte) map[string]int64 {
	out := map[string]int64{}
	sc := bufio.NewScanner(bytes.NewReader(rep))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 5 || f[len(f)-1] == "total" {
			continue
		}
		if _, err := strconv.ParseFloat(f[0], 64); err != nil {
			continue
		}
		// % time, seconds, usecs/call, calls, [errors,] syscall
		if n, err := strconv.ParseInt(f[3], 10, 64); err == nil {
			out[f[len(f)-1]] = n
		}
	}
	return out
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
