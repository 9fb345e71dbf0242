package main

import (
	"context"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/testbed/bench/loadgen"
)

// The proxy beside the proxies people already trust: the same server
// behind the watchdog's proxy, nginx and HAProxy, all running at once,
// and the same load straight and through each. A busy machine (2 cores,
// shared) moves every figure, so each proxy's window runs right after a
// straight window of its own, round after round, and each round gives a
// ratio of the two: what the machine did meanwhile touches both.

// through is one frontend's figures at one server and concurrency, over
// every round.
type through struct {
	f        *frontend
	straight loadgen.Result // the straight windows right before its own
	proxied  loadgen.Result
	ratios   []float64       // per round: its calls/s over the straight window's
	added99  []time.Duration // per round: its p99 less the straight window's
	cpu      time.Duration   // its processes', over its windows
	// ends is the CPU of the load generator and the server (the ends of
	// every call) over the straight windows and over the proxy's: what
	// a proxy makes them spend besides its own.
	endsStraight, endsThrough time.Duration
	conns                     int64      // connections the server accepted over its windows
	paths                     pathCounts // how the watchdog served them (zero for the others)
}

// ratio is the median of the rounds' ratios.
func (t *through) ratio() float64 {
	r := slices.Clone(t.ratios)
	slices.Sort(r)
	if len(r) == 0 {
		return 0
	}
	if len(r)%2 == 1 {
		return r[len(r)/2]
	}
	return (r[len(r)/2-1] + r[len(r)/2]) / 2
}

func (t *through) cpuPerCall() time.Duration {
	return t.cpu / time.Duration(max(t.proxied.Calls, 1))
}

// endsPerCall is the ends' CPU per call, straight and through the proxy.
func (t *through) endsPerCall() (straight, through time.Duration) {
	return t.endsStraight / time.Duration(max(t.straight.Calls, 1)), t.endsThrough / time.Duration(max(t.proxied.Calls, 1))
}

func (t *through) connsPer1000() float64 {
	return float64(t.conns) * 1000 / float64(max(t.proxied.Calls, 1))
}

func (t *through) added(q float64) time.Duration {
	return t.proxied.Quantile(q) - t.straight.Quantile(q)
}

// compareRow is one server and concurrency.
type compareRow struct {
	server string
	conc   int
	paths  []*through // watchdog first
}

// proxyCompare measures every server at every concurrency through the
// watchdog, nginx and HAProxy, and prints the table.
func (b *bench) proxyCompare(ctx context.Context, servers []string, concs []int, window time.Duration, rounds int) error {
	load0 := loadAvg()
	var rows []compareRow
	for _, name := range servers {
		r, err := b.compareServer(ctx, name, concs, window, rounds)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		rows = append(rows, r...)
	}
	printCompare(rows, compareRun{window: window, rounds: rounds, load: [2]string{load0, loadAvg()}})
	return nil
}

// compareServer starts one server and the three frontends before it.
func (b *bench) compareServer(ctx context.Context, name string, concs []int, window time.Duration, rounds int) ([]compareRow, error) {
	srv, fronts, stop, err := b.startServerAndFronts(ctx, name)
	defer stop()
	if err != nil {
		return nil, err
	}
	var rows []compareRow
	for _, c := range concs {
		fmt.Fprintf(os.Stderr, "bench: %s server, %d concurrent calls, %d rounds of %s per path\n", name, c, rounds, window)
		paths, err := b.compareAt(ctx, srv, fronts, c, window, rounds)
		if err != nil {
			return nil, fmt.Errorf("%d concurrent: %w", c, err)
		}
		rows = append(rows, compareRow{server: name, conc: c, paths: paths})
	}
	return rows, nil
}

// compareAt runs the rounds at concurrency c: c sessions straight and c
// through each frontend, opened and warmed up first; then in each round,
// for each frontend (in an order that turns each round), a straight window
// and the frontend's window.
func (b *bench) compareAt(ctx context.Context, srv *upstream, fronts []*frontend, c int, window time.Duration, rounds int) ([]*through, error) {
	direct, err := loadgen.Open(ctx, loadgen.Client(c), srv.URL(), c, c)
	if err != nil {
		return nil, fmt.Errorf("straight: %w", err)
	}
	defer direct.Close(ctx)
	sessions := make([]*loadgen.Sessions, len(fronts))
	paths := make([]*through, len(fronts))
	for i, f := range fronts {
		s, err := loadgen.Open(ctx, loadgen.Client(c), f.url, c, c)
		if err != nil {
			return nil, fmt.Errorf("through %s: %w", f.name, err)
		}
		defer s.Close(ctx)
		sessions[i], paths[i] = s, &through{f: f}
	}
	for _, s := range append([]*loadgen.Sessions{direct}, sessions...) {
		if _, err := s.Run(ctx, window/4); err != nil {
			return nil, err
		}
	}
	for r := range rounds {
		for k := range fronts {
			i := (k + r) % len(fronts)
			if err := b.compareWindow(ctx, srv, direct, sessions[i], paths[i], window); err != nil {
				return nil, err
			}
		}
	}
	return paths, nil
}

// compareWindow is one straight window and one through t's frontend.
func (b *bench) compareWindow(ctx context.Context, srv *upstream, direct, via *loadgen.Sessions, t *through, window time.Duration) error {
	ends := func() time.Duration { return pidsCPU(os.Getpid(), srv.cmd.Process.Pid) }
	e0 := ends()
	s, err := direct.Run(ctx, window)
	if err != nil {
		return fmt.Errorf("straight: %w", err)
	}
	e1 := ends()
	cpu0, err := t.f.cpu()
	if err != nil {
		return err
	}
	conns0, paths0 := srv.Accepted(), t.f.paths()
	p, err := via.Run(ctx, window)
	if err != nil {
		return fmt.Errorf("through %s: %w", t.f.name, err)
	}
	e2 := ends()
	cpu1, err := t.f.cpu()
	if err != nil {
		return err
	}
	t.straight, t.proxied = t.straight.Add(s), t.proxied.Add(p)
	t.ratios = append(t.ratios, p.PerSecond()/s.PerSecond())
	t.added99 = append(t.added99, p.Quantile(0.99)-s.Quantile(0.99))
	t.cpu += cpu1 - cpu0
	t.endsStraight += e1 - e0
	t.endsThrough += e2 - e1
	t.conns += srv.Accepted() - conns0
	t.paths = t.paths.add(t.f.paths().sub(paths0))
	return nil
}

// pidsCPU is the CPU time of the processes so far (0 for one that cannot
// be read).
func pidsCPU(pids ...int) time.Duration {
	var sum time.Duration
	for _, pid := range pids {
		if c, err := cpuTime(pid); err == nil {
			sum += c
		}
	}
	return sum
}
