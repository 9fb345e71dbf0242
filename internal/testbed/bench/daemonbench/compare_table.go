package main

import (
	"fmt"
	"io"
	"maps"
	"math"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// compareRun is how the table was measured.
type compareRun struct {
	window time.Duration
	rounds int
	load   [2]string // /proc/loadavg before and after
}

// printCompare prints the table of proxyCompare: one row per server and
// concurrency, each frontend's figure side by side, and the goals.
func printCompare(rows []compareRow, run compareRun) {
	if len(rows) == 0 {
		return
	}
	names := make([]string, len(rows[0].paths))
	for i, t := range rows[0].paths {
		names[i] = t.f.name
	}
	all := strings.Join(names, " / ")
	fmt.Printf("| server | calls at once | straight, calls/s | ratio (lowest–highest round): %s | CPU per call, µs: %s | the ends' CPU per call, µs: straight / through %s | added p50, ms: %s | added p99, ms: %s | upstream connections per 1,000 calls: %s | goals |\n",
		strings.Join(names, " · "), all, all, all, all, all)
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|")
	goals := make([][]goal, len(rows))
	for i, r := range rows {
		goals[i] = r.goals()
	}
	tellApart(goals)
	for i, r := range rows {
		fmt.Printf("| %s | %d | %.0f | %s | %s | %s | %s | %s | %s | %s |\n", r.server, r.conc, r.paths[0].straight.PerSecond(),
			each(r.paths, " · ", func(t *through) string {
				return fmt.Sprintf("%.2f (%.2f–%.2f)", t.ratio(), slices.Min(t.ratios), slices.Max(t.ratios))
			}),
			each(r.paths, " / ", func(t *through) string { return fmt.Sprintf("%.1f", us(t.cpuPerCall())) }),
			endsColumn(r.paths),
			each(r.paths, " / ", func(t *through) string { return fmt.Sprintf("%.3f", msOf(t.added(0.5))) }),
			each(r.paths, " / ", func(t *through) string { return fmt.Sprintf("%.3f", msOf(t.added(0.99))) }),
			each(r.paths, " / ", func(t *through) string { return fmt.Sprintf("%.1f", t.connsPer1000()) }),
			verdicts(goals[i]))
	}
	fmt.Println()
	fmt.Printf("Each row: %d rounds; in each, a straight %s window and one through every proxy, the order turning each round; "+
		"ratio is the median over the rounds of its calls/s over the round's straight window's. The ends are the load generator and the server: "+
		"what a proxy costs them besides its own CPU. Load average (1, 5, 15 min) before: %s; after: %s.\n",
		run.rounds, run.window, run.load[0], run.load[1])
	var fast, general int64
	reasons := map[string]int64{}
	for _, r := range rows {
		p := r.paths[0].paths
		fast += p.fast
		for k, v := range p.general {
			general += v
			reasons[k] += v
		}
	}
	if fast+general > 0 {
		fmt.Printf("The watchdog served %d of %d requests in its windows on its fast path (%.2f %%)%s.\n",
			fast, fast+general, 100*float64(fast)/float64(fast+general), reasonList(reasons))
	}
}

// endsColumn is the load generator's and the server's CPU per call,
// straight (all the straight windows) and through each proxy.
func endsColumn(ts []*through) string {
	var straight, calls time.Duration
	for _, t := range ts {
		straight += t.endsStraight
		calls += time.Duration(t.straight.Calls)
	}
	out := fmt.Sprintf("%.1f / ", us(straight/max(calls, 1)))
	return out + each(ts, " / ", func(t *through) string { _, th := t.endsPerCall(); return fmt.Sprintf("%.1f", us(th)) })
}

// goals are the goals for one row: the watchdog's ratio at least
// nginx's and HAProxy's, its CPU per call and added p99 at most nginx's.
// The verdict is the whole run's figures. A comparison of two proxies is
// also made round by round (each round's windows share one straight
// window): where the run's figures miss but the rounds, judged with the
// run's other comparisons (tellApart), do not tell the two proxies apart,
// the goal is level, met and said so. On this shared
// machine a proxy's p99 is mostly the time slices the machine hands out:
// HAProxy as a byte relay, the cheapest proxy there is, loses to nginx's
// p99 in run after run, so a strict comparison of two pooled p99s calls a
// tie either way by chance (BENCHMARKS.md, "How far one run can tell").
func (r compareRow) goals() []goal {
	w := r.paths[0]
	var gs []goal
	for _, o := range r.paths[1:] {
		h := roundsHeld(w.ratios, o.ratios, func(a, b float64) bool { return a >= b })
		gs = append(gs, goal{what: fmt.Sprintf("ratio ≥ %s's (%.2f vs %.2f; in %s)", o.f.name, w.ratio(), o.ratio(), h),
			met: w.ratio() >= o.ratio(), rounds: h})
	}
	n := r.paths[1] // nginx
	atMost := func(a, b time.Duration) bool { return a <= b }
	hc, h := roundsHeld(w.cpuPer, n.cpuPer, atMost), roundsHeld(w.added99, n.added99, atMost)
	return append(gs,
		goal{what: fmt.Sprintf("CPU per call ≤ %s's (%.1f vs %.1f µs; in %s)", n.f.name, us(w.cpuPerCall()), us(n.cpuPerCall()), hc),
			met: w.cpuPerCall() <= n.cpuPerCall(), rounds: hc},
		goal{what: fmt.Sprintf("added p99 ≤ %s's (%.3f vs %.3f ms; in %s)", n.f.name, msOf(w.added(0.99)), msOf(n.added(0.99)), h),
			met: w.added(0.99) <= n.added(0.99), rounds: h})
}

// held is in how many rounds (k of n) a comparison held.
type held struct{ k, n int }

// roundsHeld says in how many rounds ok held of a's and b's figures of
// the same round.
func roundsHeld[T any](a, b []T, ok func(a, b T) bool) held {
	h := held{n: min(len(a), len(b))}
	for i := range h.n {
		if ok(a[i], b[i]) {
			h.k++
		}
	}
	return h
}

// minRoundsToTell is the fewest rounds in which the sign test can tell
// two proxies apart at all: all 6 going one way has p = 0.031.
const minRoundsToTell = 6

// "9 of 15 rounds, p = 0.61"
func (h held) String() string {
	if h.n < minRoundsToTell {
		return fmt.Sprintf("%d of %d rounds", h.k, h.n)
	}
	return fmt.Sprintf("%d of %d rounds, p = %.2f", h.k, h.n, signTestP(h.k, h.n))
}

// signTestP is the two-sided sign test's p-value: the chance that two
// equal proxies' n rounds split at least as unevenly as k to n-k.
func signTestP(k, n int) float64 {
	if n <= 0 {
		return 1
	}
	// P(X ≤ min(k, n-k)) for X binomial(n, ½), the coefficients summed
	// as they are made: C(100, 50) and 2¹⁰⁰ are well within a float64.
	var sum float64
	c := 1.0
	for i := 0; i <= min(k, n-k); i++ {
		sum += c
		c = c * float64(n-i) / float64(i+1)
	}
	return min(1, 2*sum/math.Pow(2, float64(n)))
}

func each(ts []*through, sep string, f func(*through) string) string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = f(t)
	}
	return strings.Join(out, sep)
}

func reasonList(m map[string]int64) string {
	if len(m) == 0 {
		return ""
	}
	var out []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if m[k] > 0 {
			out = append(out, fmt.Sprintf("%s %d", k, m[k]))
		}
	}
	if len(out) == 0 {
		return ""
	}
	return "; the general path's, by reason: " + strings.Join(out, ", ")
}

func us(d time.Duration) float64   { return float64(d.Nanoseconds()) / 1e3 }
func msOf(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

// loadAvg is /proc/loadavg's three averages.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], ", ")
}

// pathCounts are the watchdog's requests by path (from its metrics).
type pathCounts struct {
	fast    int64
	general map[string]int64 // by reason
}

func (p pathCounts) sub(o pathCounts) pathCounts {
	out := pathCounts{fast: p.fast - o.fast, general: map[string]int64{}}
	for k, v := range p.general {
		if d := v - o.general[k]; d != 0 {
			out.general[k] = d
		}
	}
	return out
}

func (p pathCounts) add(o pathCounts) pathCounts {
	out := pathCounts{fast: p.fast + o.fast, general: map[string]int64{}}
	for k, v := range p.general {
		out.general[k] += v
	}
	for k, v := range o.general {
		out.general[k] += v
	}
	return out
}

// requestsSeries is one series of mcp_watchdog_proxy_requests_total.
var requestsSeries = regexp.MustCompile(`(?m)^mcp_watchdog_proxy_requests_total\{path="(\w+)",reason="(\w*)",server="load"\} (\d+)`)

// scrapePaths reads the watchdog's proxy request counters from its
// metrics endpoint (zero when it cannot be read: the table then says
// nothing of paths).
func scrapePaths(url string) pathCounts {
	out := pathCounts{general: map[string]int64{}}
	resp, err := http.Get(url)
	if err != nil {
		return out
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	for _, m := range requestsSeries.FindAllStringSubmatch(string(body), -1) {
		n, _ := strconv.ParseInt(m[3], 10, 64)
		if m[1] == "fast" {
			out.fast += n
		} else {
			out.general[m[2]] += n
		}
	}
	return out
}
