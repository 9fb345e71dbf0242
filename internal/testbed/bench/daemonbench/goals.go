package main

import (
	"cmp"
	"slices"
	"strings"
)

// goal is one goal of a row and whether it was met. A comparison with
// another proxy is also made round by round (rounds); one the run's
// figures miss but whose rounds cannot tell the two apart is level: met,
// and said so (tellApart).
type goal struct {
	what   string
	met    bool
	rounds held // in how many rounds it held; zero: not compared by rounds
	level  bool
}

func goalList(gs []goal) string {
	out := make([]string, len(gs))
	for i, g := range gs {
		out[i] = g.what
	}
	return strings.Join(out, ", ")
}

// verdicts is "met", or "**missed**:" and the goals missed; the level ones
// are named after either.
func verdicts(gs []goal) string {
	var missed, level []string
	for _, g := range gs {
		switch {
		case g.met:
		case g.level:
			level = append(level, g.what)
		default:
			missed = append(missed, g.what)
		}
	}
	out := "met"
	if len(missed) > 0 {
		out = "**missed**: " + strings.Join(missed, "; ") + " (the rest met)"
	}
	if len(level) > 0 {
		out += "; level, the rounds split as two equal proxies' would: " + strings.Join(level, "; ")
	}
	return out
}

// familyAlpha is the chance, over a whole run's comparisons at once, of
// calling two equal proxies different: benchstat's 0.05.
const familyAlpha = 0.05

// tellApart judges a run's comparisons together: a missed one is level
// unless its rounds tell the two proxies apart (Holm–Bonferroni over every
// comparison made by rounds, at familyAlpha). One at a time, each at 0.05,
// a table of 24 comparisons calls two equal proxies different in one of
// them in about a run of four, a different one each run.
func tellApart(rows [][]goal) {
	var ps []float64
	var at [][2]int
	for i, gs := range rows {
		for j, g := range gs {
			if g.rounds.n >= minRoundsToTell {
				ps = append(ps, signTestP(g.rounds.k, g.rounds.n))
				at = append(at, [2]int{i, j})
			}
		}
	}
	apart := holm(ps, familyAlpha)
	for x, ij := range at {
		g := &rows[ij[0]][ij[1]]
		g.level = !g.met && !apart[x]
	}
}

// holm reports which of the p-values ps are told apart at alpha over the
// family: the i-th smallest (from 0) when it and every smaller one is
// under alpha/(len(ps)-i).
func holm(ps []float64, alpha float64) []bool {
	order := make([]int, len(ps))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(ps[a], ps[b]) })
	apart := make([]bool, len(ps))
	for i, j := range order {
		if ps[j] >= alpha/float64(len(ps)-i) {
			break
		}
		apart[j] = true
	}
	return apart
}
