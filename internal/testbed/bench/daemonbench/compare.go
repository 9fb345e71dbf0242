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
// shared) moves every figure, so the windows are short and interleaved,
// round after round: each round has a straight window and one through
// each proxy, and gives each proxy a ratio of its window to the straight
// one; what the machine did meanwhile touches all of them.

// through is one frontend's figures at one server and concurrency, over
// every round.
type through struct {
	f        *frontend
	straight loadgen.Result // the straight windows of its rounds
	proxied  loadgen.Result
	ratios   []float64       // per round: its calls/s over the straight window's
	added99  []time.Duration // per round: its p99 less the straight window's
	cpu      time.Duration   // its processes', over its windows
	cpuPer   []time.Duration // per round: its CPU per call
	// ends is the CPU of the load generator and the server (the ends of
	// every call) over the straight windows and over the proxy's: what
	// a proxy makes them spend besides its own.
	endsStraight, endsThrough time.Duration
	conns                     int64      // connections the server accepted over its windows
	paths                     pathCounts // how the watchdog served them (zero for the others)
}

// ratio is the median of the rounds' ratios.
func (t *through) ratio() float64 { return median(t.ratios) }

// median of v (of the middle two when they are even), 0 for none.
func median[T ~int64 | ~float64](v []T) T {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
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
// through each frontend, opened and warmed up first; then in each round
// one straight window and one window through each frontend, in an order
// that turns each round. The frontends share the round's straight window:
// the goals compare one frontend's ratio with another's, and over a
// straight window of the same round those two differ by the two proxies'
// windows alone, where a straight window of each one's own put two more
// windows' noise into every comparison.
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
		if err := b.compareRound(ctx, srv, direct, sessions, paths, window, r); err != nil {
			return nil, err
		}
	}
	return paths, nil
}

// compareRound is round r: the straight window and each frontend's, in
// roundOrder.
func (b *bench) compareRound(ctx context.Context, srv *upstream, direct *loadgen.Sessions, via []*loadgen.Sessions, paths []*through, window time.Duration, r int) error {
	ends := func() time.Duration { return pidsCPU(os.Getpid(), srv.cmd.Process.Pid) }
	var straight loadgen.Result
	var straightEnds time.Duration
	got := make([]windowRun, len(paths))
	for _, i := range roundOrder(len(paths), r) {
		if i < 0 {
			e0 := ends()
			s, err := direct.Run(ctx, window)
			if err != nil {
				return fmt.Errorf("straight: %w", err)
			}
			straight, straightEnds = s, ends()-e0
			continue
		}
		w, err := b.proxiedWindow(ctx, srv, via[i], paths[i].f, window, ends)
		if err != nil {
			return err
		}
		got[i] = w
	}
	for i, t := range paths {
		t.addRound(straight, straightEnds, got[i])
	}
	return nil
}

// roundOrder is the order of round r's windows over n frontends: their
// indexes, -1 for the straight window. Over n+1 rounds each window takes
// each place once, so none is always the one after the straight window.
func roundOrder(n, r int) []int {
	out := make([]int, n+1)
	for k := range out {
		out[k] = (k+n+1-r%(n+1))%(n+1) - 1
	}
	return out
}

// windowRun is one window through a frontend.
type windowRun struct {
	res   loadgen.Result
	cpu   time.Duration // the frontend's processes'
	ends  time.Duration // the load generator's and the server's
	conns int64         // connections the server accepted
	paths pathCounts    // how the watchdog served them
}

func (b *bench) proxiedWindow(ctx context.Context, srv *upstream, via *loadgen.Sessions, f *frontend, window time.Duration, ends func() time.Duration) (windowRun, error) {
	cpu0, err := f.cpu()
	if err != nil {
		return windowRun{}, err
	}
	conns0, paths0, e0 := srv.Accepted(), f.paths(), ends()
	p, err := via.Run(ctx, window)
	if err != nil {
		return windowRun{}, fmt.Errorf("through %s: %w", f.name, err)
	}
	e1 := ends()
	cpu1, err := f.cpu()
	if err != nil {
		return windowRun{}, err
	}
	return windowRun{res: p, cpu: cpu1 - cpu0, ends: e1 - e0, conns: srv.Accepted() - conns0, paths: f.paths().sub(paths0)}, nil
}

// addRound adds a round's windows: the straight one and t's own.
func (t *through) addRound(straight loadgen.Result, straightEnds time.Duration, w windowRun) {
	t.straight, t.proxied = t.straight.Add(straight), t.proxied.Add(w.res)
	t.ratios = append(t.ratios, w.res.PerSecond()/straight.PerSecond())
	t.added99 = append(t.added99, w.res.Quantile(0.99)-straight.Quantile(0.99))
	t.cpu += w.cpu
	t.cpuPer = append(t.cpuPer, w.cpu/time.Duration(max(w.res.Calls, 1)))
	t.endsStraight += straightEnds
	t.endsThrough += w.ends
	t.conns += w.conns
	t.paths = t.paths.add(w.paths)
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
