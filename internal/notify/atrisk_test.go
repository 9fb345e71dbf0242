package notify

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/health"
)

const atRiskTitle = "mem: session at risk"

// atRiskOf is an at-risk event for session sid on mem with left to go.
func atRiskOf(sid string, left time.Duration) *health.Event {
	return &health.Event{Kind: health.EvSessionAtRisk, Server: "mem", Session: sid, Facts: health.Risk{ExpiresIn: left},
		Detail: fmt.Sprintf("the host's session on mem expires in %s", left)}
}

// endOf is an event of kind that ends session sid on mem.
func endOf(kind health.EventKind, sid string) *health.Event {
	return &health.Event{Kind: kind, Server: "mem", Session: sid, Detail: "ended", Facts: health.FactsOf(kind)}
}

func TestAtRiskOncePerSession(t *testing.T) {
	t.Parallel()
	const sid = "0f8e4a1c-7b2d-4e6f-9a3b-5c1d2e3f4a5b"
	keepWarm := &health.Event{Kind: health.EvKeepWarm, Server: "mem", Session: sid, Detail: "pinged"}
	tests := []struct {
		name  string
		steps []step
		want  []string
	}{
		{"warned, used, idle again: no second warning", []step{{ev: atRiskOf(sid, 30*time.Minute)},
			{at: time.Minute, ev: keepWarm}, {at: 12 * time.Hour, ev: atRiskOf(sid, 30*time.Minute)}},
			[]string{atRiskTitle}},
		{"a new session of the host is a new warning", []step{{ev: atRiskOf(sid, time.Hour)},
			{at: time.Hour, ev: atRiskOf("9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d", time.Hour)}},
			[]string{atRiskTitle, atRiskTitle}},
		{"the same session on another server is another warning", []step{{ev: atRiskOf(sid, time.Hour)},
			{ev: &health.Event{Kind: health.EvSessionAtRisk, Server: "docs", Session: sid, Facts: health.Risk{ExpiresIn: time.Hour}}}},
			[]string{atRiskTitle, "docs: session at risk"}},
		{"at risk after the loss: the loss is the news", []step{{ev: lost("mem")},
			{at: time.Second, ev: atRiskOf(sid, 20*time.Minute)}},
			[]string{lostTitle("mem")}},
		{"at risk after the incident closed: a warning again", []step{{ev: lost("mem")},
			{at: time.Second, ev: recovered("mem", 1000)}, {at: time.Hour, ev: atRiskOf(sid, 20*time.Minute)}},
			[]string{lostTitle("mem"), "mem recovered in 1s", atRiskTitle}},
		{"expires in 0s: the last tick, no warning", []step{{ev: atRiskOf(sid, 0)}}, nil},
		{"expires in 999ms: the last tick, no warning", []step{{ev: atRiskOf(sid, 999*time.Millisecond)}}, nil},
		{"expires in 1s: still a warning", []step{{ev: atRiskOf(sid, time.Second)}}, []string{atRiskTitle}},
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

// A session's end forgets its mark: a later session that happens to reuse
// the id (a test server counting from 1) is warned again.
func TestAtRiskMarkForgottenWhenTheSessionEnds(t *testing.T) {
	t.Parallel()
	const sid = "session-000000000001"
	for _, kind := range []health.EventKind{health.EvSessionExpired, health.EvSessionEnded, health.EvSessionLost} {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			steps := []step{{ev: atRiskOf(sid, time.Hour)}, {at: time.Hour, ev: endOf(kind, sid)},
				{at: 2 * time.Hour, ev: atRiskOf(sid, time.Hour)}}
			want := []string{atRiskTitle, atRiskTitle}
			if got := run(t, steps, nil); !slices.Equal(got, want) {
				t.Errorf("titles:\n got %q\nwant %q", got, want)
			}
		})
	}
}

// A long run warns about many sessions; the marks stay bounded, dropping
// the oldest first.
func TestAtRiskMarksBounded(t *testing.T) {
	t.Parallel()
	s := newState()
	sid := func(i int) string { return fmt.Sprintf("session-%012d", i) }
	for i := range maxAtRiskMarks + 50 {
		s.observe(*atRiskOf(sid(i), time.Hour), t0.Add(time.Duration(i)*time.Second), false)
	}
	if n := s.warned.len(); n != maxAtRiskMarks {
		t.Fatalf("%d marks kept, want %d", n, maxAtRiskMarks)
	}
	now := t0.Add(time.Hour)
	if got := s.observe(*atRiskOf(sid(0), time.Hour), now, false); len(got) != 1 {
		t.Errorf("the oldest mark was kept: %v", got)
	}
	if got := s.observe(*atRiskOf(sid(maxAtRiskMarks+49), time.Hour), now, false); len(got) != 0 {
		t.Errorf("the newest mark was dropped: %v", got)
	}
}

func lostTitle(server string) string { return server + ": session lost — the watchdog is healing it" }

func healedTitle(server string) string { return server + ": session lost — since recovered" }
