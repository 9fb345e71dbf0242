package soak

import "testing"

// The report writes counts by reason as words, not a Go map literal.
func TestCountsAsWords(t *testing.T) {
	t.Parallel()
	if got := counts(map[string]int{"killed": 1, "idle": 3}); got != "idle 3, killed 1" {
		t.Errorf("counts = %q", got)
	}
	if got := counts(nil); got != "none" {
		t.Errorf("counts(nil) = %q", got)
	}
}
