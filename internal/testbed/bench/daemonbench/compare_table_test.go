package main

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/testbed/bench/loadgen"
)

// goalCase is a row and what its verdict must say.
type goalCase struct {
	name string
	row  compareRow
	want []string
}

// latencies is a window's result: 100 calls of 1 ms, the last p99.
func latencies(p99 time.Duration) loadgen.Result {
	l := make([]time.Duration, 100)
	for i := range l {
		l[i] = time.Millisecond
	}
	l[99] = p99
	return loadgen.Result{Calls: 100, Latencies: l}
}

// testPath is a frontend's figures over a row's rounds.
func testPath(name string, ratios []float64, added99 []time.Duration, p99 time.Duration, cpu time.Duration, cpuPer ...time.Duration) *through {
	return &through{f: &frontend{name: name}, ratios: ratios, added99: added99,
		straight: latencies(2 * time.Millisecond), proxied: latencies(p99), cpu: cpu, cpuPer: cpuPer}
}

// goalCases are TestGoalsSayInHowManyRoundsEachHeld's rows.
func goalCases() []goalCase {
	path := testPath
	ms := time.Millisecond
	return []goalCase{{
		name: "ahead on the median though behind in some rounds",
		row: compareRow{paths: []*through{
			path("watchdog", []float64{0.80, 0.90, 1.00}, []time.Duration{ms, 3 * ms, ms}, 3*ms, 1000*time.Microsecond),
			path("nginx", []float64{0.85, 0.85, 0.85}, []time.Duration{2 * ms, 2 * ms, 2 * ms}, 4*ms, 2000*time.Microsecond),
			path("HAProxy", []float64{0.70, 0.95, 0.70}, nil, 4*ms, 0),
		}},
		want: []string{"met"},
	}, {
		name: "behind on the median",
		row: compareRow{paths: []*through{
			path("watchdog", []float64{0.80, 0.84, 0.90}, []time.Duration{3 * ms, 3 * ms, ms}, 5*ms, 1000*time.Microsecond),
			path("nginx", []float64{0.85, 0.85, 0.85}, []time.Duration{2 * ms, 2 * ms, 2 * ms}, 4*ms, 2000*time.Microsecond),
			path("HAProxy", []float64{0.70, 0.70, 0.70}, nil, 4*ms, 0),
		}},
		want: []string{"**missed**", "ratio ≥ nginx's (0.84 vs 0.85; in 1 of 3 rounds)", "added p99 ≤ nginx's (3.000 vs 2.000 ms; in 1 of 3 rounds)"},
	}, {
		name: "behind on the pooled p99, the rounds split evenly",
		row: compareRow{paths: []*through{
			path("watchdog", slices.Repeat([]float64{0.9}, 8), slices.Repeat([]time.Duration{3 * ms, ms}, 4), 5*ms, 1000*time.Microsecond),
			path("nginx", slices.Repeat([]float64{0.85}, 8), slices.Repeat([]time.Duration{2 * ms}, 8), 4*ms, 2000*time.Microsecond),
			path("HAProxy", slices.Repeat([]float64{0.70}, 8), nil, 4*ms, 0),
		}},
		want: []string{"met; level, the rounds split as two equal proxies' would: added p99 ≤ nginx's (3.000 vs 2.000 ms; in 4 of 8 rounds, p = 1.00)"},
	}, {
		name: "behind on the pooled p99 and in most rounds",
		row: compareRow{paths: []*through{
			path("watchdog", slices.Repeat([]float64{0.9}, 8), slices.Repeat([]time.Duration{3 * ms}, 8), 5*ms, 1000*time.Microsecond),
			path("nginx", slices.Repeat([]float64{0.85}, 8), slices.Repeat([]time.Duration{2 * ms}, 8), 4*ms, 2000*time.Microsecond),
			path("HAProxy", slices.Repeat([]float64{0.70}, 8), nil, 4*ms, 0),
		}},
		want: []string{"**missed**: added p99 ≤ nginx's (3.000 vs 2.000 ms; in 0 of 8 rounds, p = 0.01) (the rest met)"},
	}}
}

// cpuGoalCases are the rows of TestGoalsSayInHowManyRoundsEachHeld on CPU
// per call, compared round by round too.
func cpuGoalCases() []goalCase {
	path := testPath
	ms, us := time.Millisecond, time.Microsecond
	return []goalCase{{
		name: "behind on CPU per call over the run, the rounds split evenly",
		row: compareRow{paths: []*through{
			path("watchdog", slices.Repeat([]float64{0.9}, 8), slices.Repeat([]time.Duration{ms}, 8), 3*ms, 2100*us, slices.Repeat([]time.Duration{40 * us, 44 * us}, 4)...),
			path("nginx", slices.Repeat([]float64{0.85}, 8), slices.Repeat([]time.Duration{2 * ms}, 8), 4*ms, 2000*us, slices.Repeat([]time.Duration{42 * us}, 8)...),
			path("HAProxy", slices.Repeat([]float64{0.70}, 8), nil, 4*ms, 0),
		}},
		want: []string{"met; level, the rounds split as two equal proxies' would: CPU per call ≤ nginx's (21.0 vs 20.0 µs; in 4 of 8 rounds, p = 1.00)"},
	}, {
		name: "behind on CPU per call in every round",
		row: compareRow{paths: []*through{
			path("watchdog", slices.Repeat([]float64{0.9}, 8), slices.Repeat([]time.Duration{ms}, 8), 3*ms, 2100*us, slices.Repeat([]time.Duration{44 * us}, 8)...),
			path("nginx", slices.Repeat([]float64{0.85}, 8), slices.Repeat([]time.Duration{2 * ms}, 8), 4*ms, 2000*us, slices.Repeat([]time.Duration{42 * us}, 8)...),
			path("HAProxy", slices.Repeat([]float64{0.70}, 8), nil, 4*ms, 0),
		}},
		want: []string{"**missed**: CPU per call ≤ nginx's (21.0 vs 20.0 µs; in 0 of 8 rounds, p = 0.01) (the rest met)"},
	}}
}

// The goals' verdict is the run's figures; each comparison also says in
// how many rounds it held, and one the rounds cannot tell apart is level.
func TestGoalsSayInHowManyRoundsEachHeld(t *testing.T) {
	for _, tt := range append(goalCases(), cpuGoalCases()...) {
		t.Run(tt.name, func(t *testing.T) {
			gs := [][]goal{tt.row.goals()}
			tellApart(gs)
			got := verdicts(gs[0])
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("verdict %q: want it to contain %q", got, w)
				}
			}
			if strings.Contains(got, "HAProxy") || strings.Contains(got, "level") != strings.Contains(tt.want[0], "level") {
				t.Errorf("verdict %q: names HAProxy, whose ratio the watchdog's is above, or calls level what is not", got)
			}
		})
	}
}

// A round has the straight window and one window through each frontend;
// over n+1 rounds each takes each place once.
func TestRoundOrderTurns(t *testing.T) {
	for _, n := range []int{1, 3, 5} {
		places := map[[2]int]int{} // window, place → rounds
		for r := range n + 1 {
			order := roundOrder(n, r)
			seen := map[int]bool{}
			for k, i := range order {
				if i < -1 || i >= n || seen[i] {
					t.Fatalf("n=%d round %d: order %v: want -1..%d once each", n, r, order, n-1)
				}
				seen[i] = true
				places[[2]int{i, k}]++
			}
		}
		if len(places) != (n+1)*(n+1) {
			t.Errorf("n=%d: %d window-place pairs over %d rounds; want each window in each place once", n, len(places), n+1)
		}
	}
}

// The sign test's p-values against the binomial's own sums.
func TestSignTestP(t *testing.T) {
	for _, tt := range []struct {
		k, n int
		want float64
	}{
		{0, 6, 2.0 / 64},         // all six one way
		{6, 6, 2.0 / 64},         // the other way, as unlikely
		{1, 10, 2 * 11.0 / 1024}, // C(10,0)+C(10,1)
		{5, 10, 1},               // an even split
		{50, 100, 1},
		{49, 100, 0.9204107}, // 1 − C(100,50)/2¹⁰⁰: no evidence at all
		{0, 0, 1},            // no rounds: nothing told
		{2, 5, 1},            // C(5,0)+C(5,1)+C(5,2) = 16 of 32, doubled
		{0, 5, 2.0 / 32},     // five rounds cannot reach 0.05
	} {
		got := signTestP(tt.k, tt.n)
		if math.Abs(got-tt.want) > 1e-6 {
			t.Errorf("signTestP(%d, %d) = %.6f, want %.6f", tt.k, tt.n, got, tt.want)
		}
	}
	if p := signTestP(39, 100); p >= 0.05 {
		t.Errorf("39 of 100 rounds: p = %.3f, want under 0.05 (it is 0.035)", p)
	}
}

// A run's comparisons are judged together: one at p = 0.02 among many
// that split evenly is level (two equal proxies' rounds split so in one
// comparison of a table about a run in four); the same alone is missed.
func TestComparisonsJudgedTogether(t *testing.T) {
	missed := goal{what: "ratio", rounds: held{k: 6, n: 24}} // p = 0.02
	even := goal{what: "even", met: true, rounds: held{k: 12, n: 24}}
	alone := [][]goal{{missed}}
	tellApart(alone)
	if alone[0][0].level {
		t.Errorf("a comparison at p = %.3f alone is level; want missed", signTestP(6, 24))
	}
	table := [][]goal{{missed}}
	for range 23 {
		table = append(table, []goal{even})
	}
	tellApart(table)
	if !table[0][0].level {
		t.Errorf("a comparison at p = %.3f among 24 is missed; want level", signTestP(6, 24))
	}
	few := [][]goal{{{what: "few", rounds: held{k: 0, n: 5}}}} // too few rounds to tell anything
	tellApart(few)
	if few[0][0].level {
		t.Error("a comparison of 5 rounds is level; want missed: too few rounds to call it either way")
	}
}

// Holm–Bonferroni against worked examples.
func TestHolm(t *testing.T) {
	for _, tt := range []struct {
		ps   []float64
		want []bool
	}{
		{[]float64{0.01, 0.04, 0.03, 0.005}, []bool{true, false, false, true}}, // 0.005<0.0125, 0.01<0.0167, 0.03≥0.025
		{[]float64{0.01}, []bool{true}},
		{[]float64{0.06}, []bool{false}},
		{[]float64{0.001, 0.001, 0.001}, []bool{true, true, true}},
		{[]float64{0.02, 0.5, 0.5}, []bool{false, false, false}}, // 0.02 ≥ 0.05/3
		{nil, []bool{}},
	} {
		if got := holm(tt.ps, 0.05); !slices.Equal(got, tt.want) {
			t.Errorf("holm(%v) = %v, want %v", tt.ps, got, tt.want)
		}
	}
}
