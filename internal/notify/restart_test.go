package notify

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/journal"
	"github.com/mcpwatchdog/watchdog/internal/mask"
)

// rec is ev as the journal reads it back at offset at from t0: its session
// masked.
func rec(at time.Duration, ev *health.Event) journal.Record {
	r := journal.Record(*ev)
	r.Time, r.Session = t0.Add(at), mask.ID(ev.Session)
	return r
}

// shownRec is the journal's record that a bubble was shown.
func shownRec(at time.Duration, m Message) journal.Record {
	return journal.Record{Time: t0.Add(at), Kind: health.EvNotified, Server: m.Server, Facts: health.Notice{About: m.About},
		Extra: map[string]any{"title": m.Title}, Detail: "notified: " + m.Title}
}

func startedRec(at time.Duration) journal.Record {
	return journal.Record{Time: t0.Add(at), Kind: health.EvStarted}
}

// lostRecs is a storm: servers s1…sn lost 100 ms apart from at, each
// lost record followed by its notified record when shown says so.
func lostRecs(at time.Duration, n int, shown func(i int) bool) []journal.Record {
	var out []journal.Record
	for i := range n {
		server := fmt.Sprintf("s%d", i+1)
		when := at + time.Duration(i)*100*time.Millisecond
		out = append(out, rec(when, lost(server)))
		if shown(i) {
			out = append(out, shownRec(when, Message{Title: lostTitle(server), Server: server, About: AboutLost}))
		}
	}
	return out
}

func firstTwo(i int) bool { return i < 2 }

// After a restart the journal says what was already shown: no at-risk or
// heal failure twice, no loss twice, and what a kill cut off, once.
func TestRestartShowsNothingTwice(t *testing.T) {
	t.Parallel()
	const sid = "0f8e4a1c-7b2d-4e6f-9a3b-5c1d2e3f4a5b"
	summary4 := Message{Title: SummaryTitle(AboutLost, []string{"s3", "s4"}), About: AboutLostSummary}
	// The new run's events come from here on; the journal it reads ends
	// with the previous run's, which started at 0.
	restarted := time.Minute
	tests := []struct {
		name  string
		recs  []journal.Record
		steps []step
		want  []string
	}{
		{"at risk shown before the restart: not again", []journal.Record{startedRec(0),
			rec(time.Second, atRiskOf(sid, time.Hour)), shownRec(time.Second, Message{Server: "mem", About: AboutAtRisk})}, []step{{at: restarted, ev: atRiskOf(sid, 59*time.Minute)}}, nil},
		{"at risk of a session that ended before the restart: its successor is news", []journal.Record{startedRec(0),
			rec(time.Second, atRiskOf(sid, time.Hour)), rec(2*time.Second, endOf(health.EvSessionEnded, sid))},
			[]step{{at: restarted, ev: atRiskOf("9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d", time.Hour)}}, []string{atRiskTitle}},
		{"heal failure shown in the open incident: not again", []journal.Record{startedRec(0),
			rec(time.Second, lost("mem")), shownRec(time.Second, Message{Server: "mem", About: AboutLost}),
			rec(2*time.Second, healFailed("mem", "a")), shownRec(2*time.Second, Message{Server: "mem", About: AboutHealFailed})}, []step{{at: restarted, ev: healFailed("mem", "b")}}, nil},
		{"heal failure outside an incident: once an hour across the restart", []journal.Record{startedRec(0),
			rec(time.Second, healFailed("mem", "a"))},
			[]step{{at: restarted, ev: healFailed("mem", "a")}, {at: time.Hour + 2*time.Second, ev: healFailed("mem", "a")}},
			[]string{"mem: healing failed"}},
		{"a summary cut off by a kill: its losses go out once", slices.Concat([]journal.Record{startedRec(0)},
			lostRecs(time.Second, 4, firstTwo)),
			steps(tick(restarted), tick(restarted+time.Minute)), []string{lostTitle("s3"), lostTitle("s4")}},
		{"a summary shown: nothing again, and its recoveries are news", slices.Concat([]journal.Record{startedRec(0)},
			lostRecs(time.Second, 4, firstTwo), []journal.Record{shownRec(12*time.Second, summary4)}),
			steps([]step{{at: restarted, ev: recovered("s3", 1000)}}, tick(restarted+time.Minute)),
			[]string{"s3 recovered in 1s"}},
		{"a held loss that recovered before a kill cut its summary off: told once, as recovered", slices.Concat([]journal.Record{startedRec(0)},
			lostRecs(time.Second, 3, firstTwo), []journal.Record{rec(5*time.Second, recovered("s3", 1000))}),
			steps(tick(restarted), tick(restarted+time.Minute)), []string{healedTitle("s3")}},
		{"recoveries cut off by a kill fold like any storm", slices.Concat([]journal.Record{startedRec(0)},
			lostRecs(time.Second, 6, func(int) bool { return true }),
			[]journal.Record{rec(20*time.Second, recovered("s1", 1000)), rec(20*time.Second, recovered("s2", 1000)),
				rec(20*time.Second, recovered("s3", 1000)), rec(20*time.Second, recovered("s4", 1000)),
				rec(20*time.Second, recovered("s5", 1000))}),
			steps(tick(restarted), tick(restarted+time.Minute)),
			[]string{"s1 recovered in 1s", "s2 recovered in 1s", "MCP watchdog: 3 more sessions recovered: s3, s4, s5"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := run(t, tc.steps, tc.recs); !slices.Equal(got, tc.want) {
				t.Errorf("titles:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}
