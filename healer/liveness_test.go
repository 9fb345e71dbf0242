package healer

import (
	"slices"
	"testing"
	"time"
)

// TestLivenessBackoff: an up server is asked every 30 s; a down one after
// 30 s, 1 m, 2 m, … up to 10 m; an answer or any sign of life brings the
// pace back, and a sign of life makes a down server due at once.
// Long: a table of 7 step sequences.
func TestLivenessBackoff(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 12, 2, 8, 0, 0, 0, time.UTC)
	type step struct {
		at     time.Duration // since t0
		do     string        // "due", "up", "down", "alive", "unsent"
		want   []string      // for "due": the servers due
		nextIn time.Duration // after the step: Next, -1 to skip
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"up every 30 s", []step{
			{0, "due", []string{"a"}, 30 * time.Second},
			{10 * time.Millisecond, "up", nil, 30 * time.Second},
			{29 * time.Second, "due", nil, -1},
			{30*time.Second + 10*time.Millisecond, "due", []string{"a"}, -1},
		}},
		{"down doubles to ten minutes", []step{
			{0, "due", []string{"a"}, -1},
			{0, "down", nil, 30 * time.Second},
			{30 * time.Second, "due", []string{"a"}, -1},
			{30 * time.Second, "down", nil, time.Minute},
			{90 * time.Second, "due", []string{"a"}, -1},
			{90 * time.Second, "down", nil, 2 * time.Minute},
			{210 * time.Second, "due", []string{"a"}, -1},
			{210 * time.Second, "down", nil, 4 * time.Minute},
			{450 * time.Second, "due", []string{"a"}, -1},
			{450 * time.Second, "down", nil, 8 * time.Minute},
			{930 * time.Second, "due", []string{"a"}, -1},
			{930 * time.Second, "down", nil, 10 * time.Minute},
			{1530 * time.Second, "due", []string{"a"}, -1},
			{1530 * time.Second, "down", nil, 10 * time.Minute},
		}},
		{"a sign of life checks a down server at once and starts over", []step{
			{0, "down", nil, 30 * time.Second},
			{30 * time.Second, "down", nil, time.Minute},
			{40 * time.Second, "alive", nil, 0},
			{40 * time.Second, "due", []string{"a"}, -1},
			{41 * time.Second, "down", nil, 30 * time.Second},
		}},
		{"a sign of life from an up server changes nothing", []step{
			{0, "up", nil, 30 * time.Second},
			{10 * time.Second, "alive", nil, 20 * time.Second},
		}},
		{"an answer after a long outage brings the regular pace back", []step{
			{0, "down", nil, 30 * time.Second},
			{30 * time.Second, "down", nil, time.Minute},
			{90 * time.Second, "up", nil, 30 * time.Second},
			{120 * time.Second, "down", nil, 30 * time.Second},
		}},
		{"an unsent check is due again in a second", []step{
			{0, "due", []string{"a"}, 30 * time.Second},
			{0, "unsent", nil, time.Second},
			{time.Second, "due", []string{"a"}, -1},
		}},
		{"a clock set back does not wait out the difference", []step{
			{time.Hour, "down", nil, 30 * time.Second},
			{0, "due", []string{"a"}, -1},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			l := NewLiveness([]string{"a"}, t0)
			for i, s := range tc.steps {
				now := t0.Add(s.at)
				switch s.do {
				case "due":
					if got := l.Due(now); !slices.Equal(got, s.want) {
						t.Fatalf("step %d: due %v, want %v", i, got, s.want)
					}
				case "up", "down":
					l.Answered("a", s.do == "up", now)
				case "alive":
					l.Alive("a", now)
				case "unsent":
					l.Unsent("a", now)
				}
				if s.nextIn < 0 {
					continue
				}
				if got, ok := l.Next(now); !ok || got != s.nextIn {
					t.Fatalf("step %d (%s at %v): next in %v, want %v", i, s.do, s.at, got, s.nextIn)
				}
			}
		})
	}
}

// TestLivenessServers: each server keeps its own pace, and an unknown
// server's answers are ignored.
func TestLivenessServers(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 12, 2, 8, 0, 0, 0, time.UTC)
	l := NewLiveness([]string{"b", "a"}, t0)
	if got := l.Due(t0); !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("due %v", got)
	}
	l.Answered("a", false, t0)
	l.Answered("b", true, t0)
	l.Answered("zz", false, t0)
	l.Alive("zz", t0)
	for _, at := range []time.Duration{30 * time.Second, 90 * time.Second} {
		now := t0.Add(at)
		due := l.Due(now)
		l.Answered("a", false, now)
		if !slices.Contains(due, "a") {
			t.Fatalf("at %v: due %v, want a", at, due)
		}
	}
	if got := l.Due(t0.Add(2 * time.Minute)); !slices.Equal(got, []string{"b"}) {
		t.Fatalf("at 2m: due %v, want only b (a waits 2 m)", got)
	}
	if _, ok := NewLiveness(nil, t0).Next(t0); ok {
		t.Fatal("a schedule with no servers has a next check")
	}
}
