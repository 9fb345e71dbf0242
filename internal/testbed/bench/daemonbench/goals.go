package main

import "strings"

// goal is one goal of a row and whether it was met.
type goal struct {
	what string
	met  bool
}

func goalList(gs []goal) string {
	out := make([]string, len(gs))
	for i, g := range gs {
		out[i] = g.what
	}
	return strings.Join(out, ", ")
}

// verdicts is "met", or "**missed**:" and the goals missed.
func verdicts(gs []goal) string {
	var missed []string
	for _, g := range gs {
		if !g.met {
			missed = append(missed, g.what)
		}
	}
	if len(missed) == 0 {
		return "met"
	}
	return "**missed**: " + strings.Join(missed, "; ") + " (the rest met)"
}
