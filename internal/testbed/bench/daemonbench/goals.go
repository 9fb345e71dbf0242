package main

import "strings"

// goal is one goal of a row and whether it was met. A comparison with
// another proxy the run's figures miss but whose rounds cannot tell the
// two apart (sameByRounds) is level: met, and said so.
type goal struct {
	what  string
	met   bool
	level bool
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
