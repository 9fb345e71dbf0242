package notify

import (
	"slices"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/journal"
)

// stdioEv is a stdio event of opencode's filesystem server.
func stdioEv(kind health.EventKind, f health.Supervised) *health.Event {
	return &health.Event{Kind: kind, Server: "filesystem", Detail: "opencode: filesystem " + string(kind), Facts: f,
		Extra: map[string]any{"host": "opencode"}}
}

func exited(stderr string) *health.Event {
	return stdioEv(health.EvStdioExited, health.Supervised{Exit: "signal: killed", Stderr: stderr})
}

func restarted(ms int) *health.Event {
	return stdioEv(health.EvStdioRestarted, health.Supervised{Took: time.Duration(ms) * time.Millisecond, Starts: 2})
}

// One bubble per stdio incident: a crash and its restart are one, a crash
// loop's deaths and its give-up one thread of two at most, a hang one.
func TestStdioOneBubblePerIncident(t *testing.T) {
	t.Parallel()
	ms := time.Millisecond
	tests := []struct {
		name  string
		steps []step
		want  []string
	}{
		{"a crash and its restart", []step{{ev: exited("oom")},
			{at: 5 * ms, ev: stdioEv(health.EvStdioCallFailed, health.Supervised{Method: "tools/call"})},
			{at: 120 * ms, ev: restarted(120)}},
			[]string{"opencode: filesystem crashed, restarted in 120 ms"}},
		{"a crash loop: the first crash, then the give-up", []step{
			{ev: exited("")}, {at: 100 * ms, ev: restarted(100)},
			{at: 10 * time.Second, ev: exited("")}, {at: 10*time.Second + 100*ms, ev: restarted(100)},
			{at: 20 * time.Second, ev: exited("")}, {at: 20*time.Second + 100*ms, ev: restarted(100)},
			{at: 30 * time.Second, ev: exited("bad config")},
			{at: 30*time.Second + ms, ev: stdioEv(health.EvStdioGaveUp, health.Supervised{Stderr: "bad config", Starts: 5})},
			{at: 40 * time.Second, tick: true}},
			[]string{"opencode: filesystem crashed, restarted in 100 ms",
				"opencode: filesystem keeps crashing; the watchdog stopped restarting it: bad config"}},
		{"a crash a while after the last is a new incident", []step{
			{ev: exited("")}, {at: 100 * ms, ev: restarted(100)},
			{at: 5 * time.Minute, ev: exited("")}, {at: 5*time.Minute + 2500*ms, ev: restarted(2500)}},
			[]string{"opencode: filesystem crashed, restarted in 100 ms", "opencode: filesystem crashed, restarted in 2.5s"}},
		{"a crash with no restart is told alone once it is due", []step{
			{ev: exited("")}, {at: 2 * time.Second, tick: true}, {at: 6 * time.Second, tick: true}, {at: 7 * time.Second, tick: true}},
			[]string{"opencode: filesystem crashed"}},
		{"a hang, once until it is restarted", []step{
			{ev: stdioEv(health.EvStdioHung, health.Supervised{})}, {at: time.Second, ev: stdioEv(health.EvStdioHung, health.Supervised{})},
			{at: 2 * time.Second, ev: exited("")}, {at: 2*time.Second + 50*ms, ev: restarted(50)},
			{at: 3 * time.Minute, ev: stdioEv(health.EvStdioHung, health.Supervised{})}},
			[]string{"opencode: filesystem is not answering", "opencode: filesystem crashed, restarted in 50 ms",
				"opencode: filesystem is not answering"}},
		{"paused: nothing, and nothing owed after", []step{{pause: time.Minute}, {ev: exited("")},
			{at: 100 * ms, ev: restarted(100)}, {at: 2 * time.Minute, tick: true}}, nil},
		{"a change is the journal's only", []step{{ev: stdioEv(health.EvStdioChanged, health.Supervised{})}}, nil},
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

// A crash loop's bubbles share one thread, named for its host and server;
// the restart's bubble names the failed call and the last stderr line.
func TestStdioBubblesShareTheIncidentsThread(t *testing.T) {
	t.Parallel()
	failed := stdioEv(health.EvStdioRestarted, health.Supervised{Took: 120 * time.Millisecond})
	failed.Detail = "opencode: filesystem crashed (signal: killed); restarted in 120 ms, the call in flight (tools/call) failed"
	got := runMessages(t, []step{{ev: exited("fatal: out of memory")}, {at: 120 * time.Millisecond, ev: failed},
		{at: time.Second, ev: exited("")}, {at: 2 * time.Second, ev: stdioEv(health.EvStdioGaveUp, health.Supervised{})}}, nil)
	if len(got) != 2 {
		t.Fatalf("bubbles %+v, want the crash and the give-up", got)
	}
	if want := Thread("opencode: filesystem", t0); got[0].Thread != want || got[1].Thread != want {
		t.Errorf("threads %q and %q, want both %q", got[0].Thread, got[1].Thread, want)
	}
	wantBody := failed.Detail + ". Its last words on stderr: fatal: out of memory"
	if got[0].Body != wantBody || got[0].About != AboutStdioCrashed || got[0].Server != "filesystem" || got[0].Host != "opencode" {
		t.Errorf("crash bubble %+v, want body %q", got[0], wantBody)
	}
	if got[1].About != AboutStdioGaveUp {
		t.Errorf("give-up bubble about %q", got[1].About)
	}
}

// After a restart the journal's stdio records tell nothing again: a crash
// whose restart was journaled was told, one left waiting is old news.
func TestStdioRestoreTellsNothingTwice(t *testing.T) {
	t.Parallel()
	recs := []journal.Record{startedRec(0), rec(time.Second, exited("")), rec(time.Second+100*time.Millisecond, restarted(100)),
		rec(3*time.Second, exited("")), rec(3500*time.Millisecond, stdioEv(health.EvStdioHung, health.Supervised{}))}
	got := run(t, []step{{at: 4 * time.Second, tick: true}, {at: 10 * time.Second, tick: true},
		{at: 11 * time.Second, ev: stdioEv(health.EvStdioHung, health.Supervised{})},
		{at: 12 * time.Second, ev: restarted(10)}}, recs)
	if len(got) != 0 {
		t.Errorf("after the restart: %q, want nothing", got)
	}
}

// A supervisor's backlog a new daemon hears is told only when it is
// recent: a crash of hours ago is the journal's news.
func TestStdioOldBacklogIsNoBubble(t *testing.T) {
	t.Parallel()
	now := t0.Add(3 * time.Hour)
	for _, tc := range []struct {
		ago  time.Duration
		want int
	}{{2 * time.Hour, 0}, {10 * time.Minute, 1}} {
		s := newState()
		var got []Message
		for i, e := range []*health.Event{exited(""), restarted(100)} {
			ev := *e
			ev.Time = now.Add(-tc.ago + time.Duration(i)*100*time.Millisecond)
			got = append(got, s.observe(ev, now, false)...)
		}
		if len(got) != tc.want {
			t.Errorf("a crash %s ago: bubbles %+v, want %d", tc.ago, got, tc.want)
		}
	}
}
