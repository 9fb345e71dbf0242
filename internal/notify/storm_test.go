package notify

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/health"
)

// storm is n servers (s1…sn) each getting make(server) spaced apart.
func storm(n int, from, spaced time.Duration, make func(server string) *health.Event) []step {
	var out []step
	for i := range n {
		out = append(out, step{at: from + time.Duration(i)*spaced, ev: make(fmt.Sprintf("s%d", i+1))})
	}
	return out
}

func steps(parts ...[]step) []step { return slices.Concat(parts...) }

func tick(at time.Duration) []step { return []step{{at: at, tick: true}} }

func TestNoStormWhenManySessionsEndAtOnce(t *testing.T) {
	t.Parallel()
	rec := func(s string) *health.Event { return recovered(s, 1000) }
	fail := func(s string) *health.Event { return healFailed(s, "restart limit reached: restart the host yourself") }
	tests := []struct {
		name  string
		steps []step
		want  []string
	}{
		{"6 losses in 2 s: 2 bubbles and a summary; recoveries likewise", steps(
			storm(6, 0, 400*time.Millisecond, lost), tick(11*time.Second),
			storm(6, time.Minute, 300*time.Millisecond, rec), tick(71*time.Second)),
			[]string{lostTitle("s1"), lostTitle("s2"), "MCP watchdog: 4 more sessions lost: s3, s4, s5, s6",
				"s1 recovered in 1s", "s2 recovered in 1s", "MCP watchdog: 4 more sessions recovered: s3, s4, s5, s6"}},
		{"nothing more before the window ends", steps(storm(6, 0, 400*time.Millisecond, lost), tick(9*time.Second)),
			[]string{lostTitle("s1"), lostTitle("s2")}},
		{"the next event after the window brings the summary first", steps(storm(4, 0, time.Second, lost),
			[]step{{at: 20 * time.Second, ev: healFailed("s1", "start the host yourself")}}),
			[]string{lostTitle("s1"), lostTitle("s2"), "MCP watchdog: 2 more sessions lost: s3, s4",
				"s1: healing failed"}},
		{"losses spread out are no storm", steps(storm(4, 0, 11*time.Second, lost), tick(time.Minute)),
			[]string{lostTitle("s1"), lostTitle("s2"), lostTitle("s3"), lostTitle("s4")}},
		{"one left over gets its own bubble", steps(storm(3, 0, time.Second, lost), tick(11*time.Second)),
			[]string{lostTitle("s1"), lostTitle("s2"), lostTitle("s3")}},
		{"a held loss that recovered is still told, as recovered, and its recovery not again", steps(storm(4, 0, time.Second, lost),
			[]step{{at: 5 * time.Second, ev: rec("s3")}}, tick(11*time.Second), []step{{at: time.Minute, ev: rec("s4")}}),
			[]string{lostTitle("s1"), lostTitle("s2"), "MCP watchdog: 2 more sessions lost: s3, s4",
				"s4 recovered in 1s"}},
		{"a lone held loss that recovered says so in its own bubble", steps(storm(3, 0, time.Second, lost),
			[]step{{at: 5 * time.Second, ev: rec("s3")}}, tick(11*time.Second)),
			[]string{lostTitle("s1"), lostTitle("s2"), healedTitle("s3")}},
		{"every incident is told: a server lost twice counts twice", steps(storm(3, 0, time.Second, lost),
			[]step{{at: 4 * time.Second, ev: rec("s3")}, {at: 5 * time.Second, ev: lost("s3")}}, tick(11*time.Second)),
			[]string{lostTitle("s1"), lostTitle("s2"), "MCP watchdog: 2 more sessions lost: s3 (2)"}},
		{"heal failures fold too", steps(storm(5, 0, 100*time.Millisecond, fail), tick(11*time.Second)),
			[]string{"s1: healing failed", "s2: healing failed", "MCP watchdog: 3 more heals failed: s3, s4, s5"}},
		{"paused when the window ends: the reminder tells", steps(storm(3, 0, time.Second, lost),
			[]step{{at: 5 * time.Second, pause: time.Minute}}, tick(11*time.Second), tick(61*time.Minute)),
			[]string{lostTitle("s1"), lostTitle("s2"), "s1: session still lost", "s2: session still lost",
				"s3: session still lost"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := run(t, tc.steps, nil); !slices.Equal(got, tc.want) {
				t.Errorf("titles:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

// Run sends a storm's summary when its window ends, not at the next
// reminder tick (a minute away here).
func TestRunSendsTheSummaryWhenItsWindowEnds(t *testing.T) {
	t.Parallel()
	sent := make(chan string, 10)
	n := New(Options{Reminder: time.Hour, Send: func(title, _ string) error { sent <- title; return nil }})
	n.st.window = 50 * time.Millisecond
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan error)
	go func() { done <- n.Run(ctx) }()
	for _, s := range []string{"s1", "s2", "s3", "s4"} {
		n.Consider(*lost(s))
	}
	want := []string{lostTitle("s1"), lostTitle("s2"), "MCP watchdog: 2 more sessions lost: s3, s4"}
	var got []string
	deadline := time.After(20 * time.Second)
	for len(got) < len(want) {
		select {
		case title := <-sent:
			got = append(got, title)
		case <-deadline:
			t.Fatalf("sent %q, want %q", got, want)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("sent %q, want %q", got, want)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}
}

// Issue 14 item 4: a loss the host's log reported without naming a server
// is journaled against no server; the notification names the host (through
// the detail) and is not repeated for every such line.
func TestUnplacedLossIsToldOnce(t *testing.T) {
	t.Parallel()
	s := newState()
	t0 := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	ev := health.Event{Kind: health.EvSessionLost, Detail: "DSH reports a lost MCP session but names no server: x"}
	var got []Message
	for i := range 5 {
		got = append(got, s.observe(ev, t0.Add(time.Duration(i)*time.Second), false)...)
	}
	if len(got) != 1 || got[0].Body != ev.Detail || got[0].About != AboutLostUnplaced {
		t.Fatalf("messages %+v, want one naming the host", got)
	}
	if again := s.observe(ev, t0.Add(unplacedQuiet+time.Second), false); len(again) != 1 {
		t.Fatalf("after the quiet time: %+v", again)
	}
}
