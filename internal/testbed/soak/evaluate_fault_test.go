package soak

import (
	"testing"

	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/journal"
)

// warning is the daemon's warning that the journal could not be written.
func warning(ms int) Seen {
	return seen(ms, health.EvWarning, "", "", journal.Record{Detail: "the journal could not be written for 2s; nothing was lost"})
}

// Long: a table of cases, one per way a journal write failure is survived or not.
func TestEvaluateJournalWriteFailure(t *testing.T) {
	expired := func(ms int) Seen { return seen(ms, health.EvSessionExpired, "cold", idB, journal.Record{}) }
	tests := []struct {
		name                   string
		faults                 []Span
		journal                []Seen
		want                   string // a substring of the problems; "" for none
		events, lost, unwarned int
	}{
		{"held and written after it, then a warning", []Span{{From: at(4800), To: at(7000)}},
			[]Seen{expired(7500), warning(7600)}, "", 1, 0, 0},
		{"written too long after it", []Span{{From: at(4800), To: at(7000)}},
			[]Seen{warning(7600), expired(10500)}, "detected later than", 1, 0, 0},
		{"lost", []Span{{From: at(4800), To: at(7000)}},
			[]Seen{warning(7600)}, "events lost across an injected journal write failure", 1, 1, 0},
		{"no warning after it", []Span{{From: at(4800), To: at(7000)}},
			[]Seen{expired(7500)}, "no warning after them", 1, 0, 1},
		{"a warning before it does not count", []Span{{From: at(4800), To: at(7000)}},
			[]Seen{warning(4000), expired(7500)}, "no warning after them", 1, 0, 1},
		{"back to back: held through both, one warning after both", []Span{{From: at(4800), To: at(5200)}, {From: at(5500), To: at(9000)}},
			[]Seen{expired(9050), warning(9100)}, "", 1, 0, 0},
		{"apart: each needs its own warning", []Span{{From: at(4800), To: at(5200)}, {From: at(9500), To: at(10000)}},
			[]Seen{expired(5300), warning(10100)}, "no warning after them", 1, 0, 1},
		{"an end in the second before it is held too", []Span{{From: at(5500), To: at(7000)}},
			[]Seen{expired(8000), warning(8100)}, "", 1, 0, 0},
		{"an end well before it is not", []Span{{From: at(6500), To: at(7000)}},
			[]Seen{expired(7500), warning(7600)}, "detected later than", 0, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := base()
			in.JournalFault, in.Journal = tt.faults, tt.journal
			r := Evaluate(in)
			checkProblems(t, r, tt.want)
			f := r.JournalFail
			if f.Spans != len(tt.faults) || f.Events != tt.events || len(f.Lost) != tt.lost || len(f.Unwarned) != tt.unwarned {
				t.Fatalf("figures %+v; want events %d lost %d unwarned %d", f, tt.events, tt.lost, tt.unwarned)
			}
		})
	}
}

// A keep-warm ping journaled once a failure ended may have been sent before
// the host died: not a ping of a dead host's session.
func TestEvaluateHeldPingOfADeadHost(t *testing.T) {
	in := base()
	in.Hosts = []Span{{From: at(-1000), To: at(3000)}}
	in.Events = append(in.Events, ServerEvent{At: at(6100), Server: "warm", ID: idA, Reason: "idle"})
	in.JournalFault = []Span{{From: at(2800), To: at(4500)}}
	in.Journal = []Seen{seen(4600, health.EvKeepWarm, "warm", idA, journal.Record{}), warning(4700),
		seen(5100, health.EvSessionExpired, "cold", idB, journal.Record{}), seen(6200, health.EvSessionExpired, "warm", idA, journal.Record{})}
	checkProblems(t, Evaluate(in), "")
	in.JournalFault = nil
	in.Journal = append(in.Journal[:1], in.Journal[2:]...)
	checkProblems(t, Evaluate(in), "sessions of dead hosts kept alive")
}

// A keep-warm ping journaled as a restarted daemon became ready may have
// been sent at its start, before the host died: not a dead host's ping.
// One journaled well after readiness was sent after the death.
func TestEvaluateRestartPingOfADeadHost(t *testing.T) {
	in := base()
	in.Hosts = []Span{{From: at(-1000), To: at(3000)}}
	in.Events = append(in.Events, ServerEvent{At: at(6100), Server: "warm", ID: idA, Reason: "idle"})
	in.WatchdogDown = []Span{{From: at(2600), To: at(3400)}}
	in.Journal = []Seen{seen(3450, health.EvKeepWarm, "warm", idA, journal.Record{}),
		seen(5100, health.EvSessionExpired, "cold", idB, journal.Record{}), seen(6200, health.EvSessionExpired, "warm", idA, journal.Record{})}
	checkProblems(t, Evaluate(in), "")
	in.Journal[0] = seen(3800, health.EvKeepWarm, "warm", idA, journal.Record{})
	checkProblems(t, Evaluate(in), "sessions of dead hosts kept alive")
}

// A kill -9 a moment after a journal failure ended, before the daemon's
// retry: what was held and the warning come from the restarted daemon,
// and the time it was down does not count against either bound.
func TestEvaluateOutageEndedByARestart(t *testing.T) {
	for _, tt := range []struct {
		name    string
		journal []Seen
		want    string
	}{
		{"in time once back", []Seen{seen(10400, health.EvSessionExpired, "cold", idB, journal.Record{}), warning(10500)}, ""},
		{"too long after the return", []Seen{seen(13500, health.EvSessionExpired, "cold", idB, journal.Record{}), warning(13600)}, "no warning after them"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in := base()
			in.JournalFault = []Span{{From: at(4800), To: at(7000)}}
			in.WatchdogDown = []Span{{From: at(7300), To: at(10000)}}
			in.Journal = tt.journal
			checkProblems(t, Evaluate(in), tt.want)
		})
	}
}

// A record a journal write failure held back was decided any time since the
// failure began: read 2 s after the host's session started, it may have been
// decided before the beacon could name it (soak run 31: decided 43 ms after
// the session started, read 1.3 s after).
func TestEvaluateIdentityHeldByAJournalFault(t *testing.T) {
	in := base()
	in.Beacons = []Span{{From: at(-1000)}}
	in.JournalFault = []Span{{From: at(100), To: at(1800)}}
	in.Journal = []Seen{seen(2000, health.EvSessionAtRisk, "warm", idA, atRiskFrom(health.SourceInferred)), warning(2100),
		seen(5100, health.EvSessionExpired, "cold", idB, journal.Record{})}
	checkProblems(t, Evaluate(in), "")
	in.JournalFault = nil
	in.Journal = append(in.Journal[:1], in.Journal[2:]...)
	checkProblems(t, Evaluate(in), "inferred while the host's live beacon named them")
}

// A record a journal write failure held back may also have been decided as
// late as it was read: the host killed while it was held took the beacon's
// word with it (CI at 9cb32e9: the failure began while the beacon named the
// session, the host died, then the session's end was judged).
func TestEvaluateIdentityHeldPastTheBeaconsEnd(t *testing.T) {
	in := base()
	in.Beacons = []Span{{From: at(-1000), To: at(2500)}}
	in.JournalFault = []Span{{From: at(1500), To: at(2900)}}
	in.Journal = []Seen{seen(3000, health.EvSessionAtRisk, "warm", idA, atRiskFrom(health.SourceInferred)), warning(3100),
		seen(5100, health.EvSessionExpired, "cold", idB, journal.Record{})}
	checkProblems(t, Evaluate(in), "")
	in.Beacons = []Span{{From: at(-1000)}}
	checkProblems(t, Evaluate(in), "inferred while the host's live beacon named them")
}
