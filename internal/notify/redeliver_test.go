package notify

import (
	"slices"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/journal"
)

// A kill -9 between journaling an incident's event and showing its
// notification: the restart shows what was decided and never shown, once.
// Long: a table of the runs a restart looks back over, one case each.
func TestRestoreResendsWhatAKillCutOff(t *testing.T) {
	t.Parallel()
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	started := func(s int) journal.Record { return journal.Record{Time: at(s), Kind: health.EvStarted} }
	startedOn := func(s int, on bool) journal.Record {
		r := started(s)
		r.Extra = map[string]any{StartedNotifyKey: on}
		return r
	}
	lostRec := func(s int) journal.Record {
		return journal.Record{Time: at(s), Kind: health.EvSessionLost, Server: "mem", Detail: "gone", Facts: health.Loss{Incident: true}}
	}
	recRec := func(s int) journal.Record {
		return journal.Record{Time: at(s), Kind: health.EvRecovered, Server: "mem", Facts: health.Recovery{Took: 2000 * time.Millisecond}}
	}
	adoptedRec := func(s int) journal.Record {
		return journal.Record{Time: at(s), Kind: health.EvHostAdopted, Detail: "mem: now through the proxy", Extra: map[string]any{"host": "Cursor"}}
	}
	shown := func(s int, about string) journal.Record {
		return journal.Record{Time: at(s), Kind: health.EvNotified, Server: "mem", Facts: health.Notice{About: about}}
	}
	shownOf := func(s int, about, thread string) journal.Record {
		r := shown(s, about)
		r.Facts = health.Notice{About: about, Thread: thread}
		return r
	}
	shownAs := func(s int, about, title string) journal.Record {
		r := shown(s, about)
		r.Extra = map[string]any{"title": title}
		return r
	}
	tests := []struct {
		name string
		recs []journal.Record
		want []string
	}{
		{"a loss and its recovery journaled at once, the loss shown as a loss: the recovery is owed (soak)",
			[]journal.Record{started(0), lostRec(1), recRec(1), shownAs(1, AboutLost, "mem: session lost — the watchdog is healing it")},
			[]string{"mem recovered in 2s"}},
		{"a loss and its recovery journaled at once, shown as recovered: nothing owed",
			[]journal.Record{started(0), lostRec(1), recRec(1), shownAs(1, AboutLost, "mem"+HealedLossSuffix)}, nil},
		{"loss never shown, still open", []journal.Record{started(0), lostRec(1)},
			[]string{"mem: session lost — the watchdog is healing it"}},
		{"loss shown, still open", []journal.Record{started(0), lostRec(1), shown(1, AboutLost)}, nil},
		{"recovery never shown", []journal.Record{started(0), lostRec(1), shown(1, AboutLost), recRec(3)},
			[]string{"mem recovered in 2s"}},
		{"recovery shown", []journal.Record{started(0), lostRec(1), shown(1, AboutLost), recRec(3), shown(3, AboutRecovered)}, nil},
		{"recovery shown, the loss's record cut off by a kill: the recovery says the loss was told", []journal.Record{started(0),
			lostRec(1), recRec(3), shownOf(3, AboutRecovered, Thread("mem", at(1)))}, nil},
		{"a held loss that recovered, then the next loss shown: the record's thread says which, so only the first is owed",
			[]journal.Record{started(0), lostRec(1), recRec(2), lostRec(4), shownOf(4, AboutLost, Thread("mem", at(4)))},
			[]string{"mem: session lost — since recovered"}},
		{"a recovery shown without a thread: the loss it ended was told", []journal.Record{started(0),
			lostRec(1), recRec(3), shown(3, AboutRecovered)}, nil},
		{"a loss never shown that recovered: told once, as recovered", []journal.Record{started(0), lostRec(1), recRec(3)},
			[]string{"mem: session lost — since recovered"}},
		{"a held loss that recovered, then the next loss, both cut off: both told (soak run 10)",
			[]journal.Record{started(0), lostRec(1), recRec(2), lostRec(4)},
			[]string{"MCP watchdog: 2 more sessions lost: mem (2)"}},
		{"two losses, the first shown: only the second", []journal.Record{started(0), lostRec(1), shown(1, AboutLost), recRec(2),
			shown(2, AboutRecovered), lostRec(4)}, []string{"mem: session lost — the watchdog is healing it"}},
		{"runs before the last are taken as delivered", []journal.Record{started(0), lostRec(1), started(5), recRec(6), shown(6, AboutRecovered)}, nil},
		{"a journal from before runs were told apart", []journal.Record{lostRec(1)}, nil},
		{"a loss held and cut off by two kills in a row: the third run tells it (soak runs 11, 12)",
			[]journal.Record{startedOn(0, true), lostRec(1), startedOn(5, true), startedOn(9, true)},
			[]string{"mem: session lost — the watchdog is healing it"}},
		{"told by the run after the kill: not again", []journal.Record{startedOn(0, true), lostRec(1), startedOn(5, true),
			shown(6, AboutLost), startedOn(9, true)}, nil},
		{"a run that does not say notifications were on counts as delivered",
			[]journal.Record{started(0), lostRec(1), startedOn(5, true), startedOn(9, true)}, nil},
		{"a run with notifications off owes nothing", []journal.Record{startedOn(0, false), lostRec(1)}, nil},
		{"a host protected from the tray, its bubble cut off by the config change it made: told by the next run",
			[]journal.Record{startedOn(0, true), adoptedRec(1), startedOn(2, true)},
			[]string{"Cursor is protected: its servers go through the watchdog's proxy"}},
		{"a host protected, its bubble shown: not again",
			[]journal.Record{startedOn(0, true), adoptedRec(1), {Time: at(1), Kind: health.EvNotified, Facts: health.Notice{About: AboutAdopted}}, startedOn(2, true)}, nil},
		{"news older than an hour is not told again",
			[]journal.Record{startedOn(0, true), lostRec(1), startedOn(3600, true), startedOn(3605, true)}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			n := New(Options{Send: func(string, string) error { return nil }})
			n.Restore(tt.recs)
			var got []string
			for _, m := range n.takePending() {
				got = append(got, m.Title)
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("re-sent %q, want %q", got, tt.want)
			}
		})
	}
}

// Soak run 14: losses a kill cut off are re-sent at the start, and those
// past a storm's first two wait for its summary. The replay had marked
// their incidents told, so one that recovered before the summary got a
// lone "recovered" bubble and its loss was dropped from the summary: a
// recovery told for a loss never told. Now it waits with its loss and the
// summary tells it, once, as recovered.
func TestResentLossHeldForTheSummaryIsTold(t *testing.T) {
	t.Parallel()
	now := t0.Add(time.Minute)
	n := New(Options{Send: func(string, string) error { return nil }, Now: func() time.Time { return now }})
	recs := []journal.Record{{Time: t0, Kind: health.EvStarted}}
	for i, server := range []string{"a", "b", "c"} {
		recs = append(recs, journal.Record{Time: t0.Add(time.Duration(i+1) * time.Second), Kind: health.EvSessionLost,
			Server: server, Detail: "gone", Facts: health.Loss{Incident: true}})
	}
	n.Restore(recs)
	got := titles(n.takePending())
	n.Consider(health.Event{Time: now, Kind: health.EvRecovered, Server: "c", Facts: health.Recovery{Took: 2 * time.Second}})
	got = append(got, titles(n.takePending())...)
	now = now.Add(time.Minute)
	n.Tick()
	got = append(got, titles(n.takePending())...)
	want := []string{"a: session lost — the watchdog is healing it", "b: session lost — the watchdog is healing it",
		"c: session lost — since recovered"}
	if !slices.Equal(got, want) {
		t.Fatalf("shown %q, want %q", got, want)
	}
}

func titles(ms []Message) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.Title)
	}
	return out
}
