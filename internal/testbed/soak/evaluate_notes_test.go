package soak

import (
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/journal"
	"github.com/mcpwatchdog/watchdog/internal/mask"
	"github.com/mcpwatchdog/watchdog/internal/notify"
)

// note is a notification at ms.
func note(ms int, title, body string) Note { return Note{At: at(ms), Title: title, Body: body} }

// told is the notified record of the bubble n (about thread), read at ms.
func told(ms int, server, about, thread string, n Note) Seen {
	return seen(ms, health.EvNotified, server, "", journal.Record{Facts: health.Notice{About: about, Thread: thread},
		Extra: map[string]any{"title": n.Title}})
}

// detail is a record of kind with only a detail.
func detail(ms int, kind health.EventKind, server, id, text string) Seen {
	return seen(ms, kind, server, id, journal.Record{Detail: text})
}

// Long: a table of cases, one per bound on what a person is told.
func TestEvaluateNotificationsPerIncident(t *testing.T) {
	tests := []struct {
		name  string
		edit  func(*Input)
		want  string // a substring of the problems; "" for none
		check func(t *testing.T, n NoteFigures)
	}{
		{"loss and outcome", func(in *Input) {}, "", func(t *testing.T, n NoteFigures) {
			if n.MaxPerIncident != 2 || len(n.OverTwo) != 0 {
				t.Fatalf("most per incident %d, over %v", n.MaxPerIncident, n.OverTwo)
			}
		}},
		{"the outcome told twice", func(in *Input) {
			in.Notes = append(in.Notes, note(9850, "warm recovered in 600ms", "back R"))
		}, "told more than their loss and outcome", nil},
		{"the loss re-sent after a kill -9: within the bound", func(in *Input) {
			in.Journal = append(in.Journal[:2], seen(9300, health.EvStarted, "", "", journal.Record{}),
				seen(9400, health.EvNotified, "warm", "", journal.Record{Facts: health.Notice{About: "lost"}}), in.Journal[2])
			in.Notes = []Note{in.Notes[0], note(9401, "warm: session lost — x", "lost L"), in.Notes[1]}
		}, "", func(t *testing.T, n NoteFigures) {
			if n.MaxPerIncident != 3 || len(n.OverTwo) != 0 {
				t.Fatalf("most per incident %d, over %v", n.MaxPerIncident, n.OverTwo)
			}
		}},
		{"the loss re-sent after a kill -9, its record after the new run's next loss, which waits for a summary: within the bound", func(in *Input) {
			// CI at ef870f8 (soak seed 1796033718940005853): 3 bubbles for
			// one incident, none counted as re-sent, since the new run's own
			// loss came first and never had a bubble of its own.
			in.ServerDown["warm"] = append(in.ServerDown["warm"], Span{From: at(9850), To: at(9880)})
			thread := notify.Thread("warm", at(9200))
			resend, back := note(9340, "warm: session lost — x", "lost L"), note(9930, "warm recovered in 600ms", "back R")
			in.Journal = append(in.Journal[:2], seen(9300, health.EvStarted, "", "", journal.Record{}), in.Journal[2],
				seen(9900, health.EvSessionLost, "warm", idC, journal.Record{Facts: health.Loss{Incident: true}, Detail: "lost L"}),
				told(9920, "warm", notify.AboutLost, thread, resend), told(9940, "warm", notify.AboutRecovered, thread, back))
			in.Notes = []Note{in.Notes[0], resend, back}
		}, "", func(t *testing.T, n NoteFigures) {
			if n.MaxPerIncident != 3 || len(n.OverTwo) != 0 {
				t.Fatalf("most per incident %d, over %v", n.MaxPerIncident, n.OverTwo)
			}
		}},
		{"a loss re-sent at a start, read next to that run's own loss: it goes with the incident its record names", func(in *Input) {
			// By its words and time alone it went with the new loss, already
			// claimed like its own: three bubbles there, none re-sent.
			in.ServerDown["warm"] = append(in.ServerDown["warm"], Span{From: at(9325), To: at(9328)})
			in.Events[len(in.Events)-1].At = at(9315) // idC, the recovery's new session
			in.Events = append(in.Events, ServerEvent{At: at(9490), Server: "warm", Start: true, ID: idD, Client: "host"})
			t1, t2 := notify.Thread("warm", at(9200)), notify.Thread("warm", at(9330))
			resend, back := note(9310, "warm: session lost — x", "lost L"), note(9321, "warm recovered in 120ms", "back R")
			lost2, back2 := note(9331, "warm: session lost — x", "lost L"), note(9501, "warm recovered in 170ms", "back R")
			in.Journal = []Seen{in.Journal[0], in.Journal[1], seen(9300, health.EvStarted, "", "", journal.Record{}),
				told(9311, "warm", notify.AboutLost, t1, resend),
				seen(9320, health.EvRecovered, "warm", "", journal.Record{Facts: health.Recovery{NewSession: mask.ID(idC)}, Detail: "back R"}),
				told(9322, "warm", notify.AboutRecovered, t1, back),
				seen(9330, health.EvSessionLost, "warm", idC, journal.Record{Facts: health.Loss{Incident: true}, Detail: "lost L"}),
				told(9332, "warm", notify.AboutLost, t2, lost2),
				seen(9500, health.EvRecovered, "warm", "", journal.Record{Facts: health.Recovery{NewSession: mask.ID(idD)}, Detail: "back R"}),
				told(9502, "warm", notify.AboutRecovered, t2, back2)}
			in.Notes = []Note{in.Notes[0], resend, back, lost2, back2}
		}, "", func(t *testing.T, n NoteFigures) {
			if n.MaxPerIncident != 3 || len(n.OverTwo) != 0 {
				t.Fatalf("most per incident %d, over %v", n.MaxPerIncident, n.OverTwo)
			}
		}},
		{"healing failed once", func(in *Input) {
			in.Journal = append(in.Journal[:2], detail(9400, health.EvHealFailed, "warm", "", "H1"), in.Journal[2])
			in.Notes = append(in.Notes, note(9401, "warm: healing failed", "H1"))
		}, "", func(t *testing.T, n NoteFigures) {
			if n.HealFailed != 1 || len(n.HealFailedRepeated)+len(n.HealFailedOutside) != 0 {
				t.Fatalf("%+v", n)
			}
		}},
		{"healing failed twice in one incident", func(in *Input) {
			in.Journal = append(in.Journal[:2], detail(9300, health.EvHealFailed, "warm", "", "H1"),
				detail(9400, health.EvHealFailed, "warm", "", "H2"), in.Journal[2])
			in.Notes = append(in.Notes, note(9301, "warm: healing failed", "H1"), note(9401, "warm: healing failed", "H2"))
		}, "more than once that healing failed", nil},
		{"healing failed with no incident open", func(in *Input) {
			in.Journal = append(in.Journal, detail(12000, health.EvHealFailed, "warm", "", "H1"))
			in.Notes = append(in.Notes, note(12001, "warm: healing failed", "H1"))
		}, "no incident open", nil},
		{"a late notification goes with the record it shows, not the nearest", func(in *Input) {
			in.Journal = append(in.Journal[:2], detail(9300, health.EvHealFailed, "warm", "", "H1"), in.Journal[2],
				detail(12000, health.EvHealFailed, "warm", "", "H2"))
			in.Notes = append(in.Notes, note(11900, "warm: healing failed", "H1"), note(12001, "warm: healing failed", "H2"))
		}, "1 healing-failed notifications with no incident open", nil},
		{"at risk once for each of two sessions", func(in *Input) {
			in.Events = append(in.Events, ServerEvent{At: at(100), Server: "cold", Start: true, ID: idD, Client: "host"})
			in.Journal = append([]Seen{detail(2000, health.EvSessionAtRisk, "warm", idA, "idle 2s"),
				detail(2100, health.EvSessionAtRisk, "cold", idD, "idle 2s")}, in.Journal...)
			in.Notes = append(in.Notes, note(2001, "warm: session at risk", "idle 2s"), note(2101, "cold: session at risk", "idle 2s"))
		}, "", func(t *testing.T, n NoteFigures) {
			if n.AtRisk != 2 || n.AtRiskSessions != 2 || n.AtRiskAfterEnd != 0 {
				t.Fatalf("%+v", n)
			}
		}},
		{"a session warned at risk twice", func(in *Input) {
			in.Journal = append([]Seen{detail(2000, health.EvSessionAtRisk, "warm", idA, "idle 2s"),
				detail(6000, health.EvSessionAtRisk, "warm", idA, "idle 2s")}, in.Journal...)
			in.Notes = append(in.Notes, note(2001, "warm: session at risk", "idle 2s"), note(6001, "warm: session at risk", "idle 2s"))
		}, "warned at risk more than once", nil},
		{"at risk shown once the loss was journaled: counted", func(in *Input) {
			in.Journal = append(in.Journal[:1], detail(9190, health.EvSessionAtRisk, "warm", idA, "idle 2s"), in.Journal[1], in.Journal[2])
			in.Notes = append(in.Notes, note(9250, "warm: session at risk", "idle 2s"))
		}, "", func(t *testing.T, n NoteFigures) {
			if n.AtRiskAfterEnd != 1 {
				t.Fatalf("at risk after the end %d, want 1", n.AtRiskAfterEnd)
			}
		}},
		{"at risk about nothing journaled", func(in *Input) {
			in.Notes = append(in.Notes, note(3000, "warm: session at risk", "idle 2s"))
		}, "about nothing journaled", nil},
		{"a reminder in an incident shorter than the interval", func(in *Input) {
			in.Reminder = time.Second
			in.Notes = append(in.Notes, note(9500, "warm: session still lost", "Lost for 300ms"))
		}, "reminders beyond one per reminder interval", nil},
		{"reminders as often as the interval allows", func(in *Input) {
			in.Reminder = 250 * time.Millisecond
			in.Notes = append(in.Notes, note(9450, "warm: session still lost", "x"), note(9700, "warm: session still lost", "x"))
		}, "", func(t *testing.T, n NoteFigures) {
			if n.Reminders != 2 {
				t.Fatalf("reminders %d", n.Reminders)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := lostAndBack()
			tt.edit(&in)
			r := Evaluate(in)
			checkProblems(t, r, tt.want)
			if tt.check != nil {
				tt.check(t, r.Notify)
			}
		})
	}
}

// stormInput: lostAndBack plus the host's session D on cold, lost in the
// same kill -9 of both servers, journaled with its own incident.
func stormInput() Input {
	in := lostAndBack()
	in.ServerDown["cold"] = []Span{{From: at(8000), To: at(9000)}}
	in.Events = append(in.Events, ServerEvent{At: at(100), Server: "cold", Start: true, ID: idD, Client: "host"})
	in.Journal = append(in.Journal, seen(9210, health.EvSessionLost, "cold", idD, journal.Record{Facts: health.Loss{Incident: true}, Detail: "lost D"}))
	return in
}

func TestEvaluateStormSummary(t *testing.T) {
	in := stormInput()
	r := Evaluate(in)
	checkProblems(t, r, "cold: 1 incidents but 0 loss notifications and 0 in summaries: 1 untold")
	in.Notes = append(in.Notes, note(9300, "MCP watchdog: 2 more sessions lost: warm, cold", "cold"))
	checkProblems(t, Evaluate(in), "warm: 1 incidents but 1 loss notifications and 1 in summaries")
	in.Notes[len(in.Notes)-1].Title = "MCP watchdog: 1 more sessions lost: cold"
	r = Evaluate(in)
	checkProblems(t, r, "")
	if r.Notify.Summaries != 1 || r.Notify.SummaryCovers != 1 {
		t.Fatalf("summaries %d covering %d", r.Notify.Summaries, r.Notify.SummaryCovers)
	}
}

// A loss held for a storm's summary that recovered before the summary went
// out is told once, as recovered: that bubble tells the loss and its end.
func TestEvaluateHeldLossToldAsRecovered(t *testing.T) {
	in := stormInput()
	const idE = "eeee5555-0000-0000-0000-00000000eeee"
	in.Events = append(in.Events, ServerEvent{At: at(9500), Server: "cold", Start: true, ID: idE, Client: "host"})
	in.Journal = append(in.Journal, seen(9800, health.EvRecovered, "cold", idD, journal.Record{Detail: "back"}))
	in.Notes = append(in.Notes, note(19300, "cold: session lost — since recovered", "lost D Recovered in 590ms."))
	checkProblems(t, Evaluate(in), "")
	// Told late, nearer in time to a later loss of the same server in the
	// same words: it is about the loss that had recovered by then.
	const idF = "ffff6666-0000-0000-0000-00000000ffff"
	const idG = "9999aaaa-0000-0000-0000-00000000aaaa"
	in.Events = append(in.Events, ServerEvent{At: at(19000), Server: "cold", Start: true, ID: idF, Client: "host"},
		ServerEvent{At: at(19390), Server: "cold", ID: idF, Reason: "deleted"},
		ServerEvent{At: at(19500), Server: "cold", Start: true, ID: idG, Client: "host"})
	in.Journal = append(in.Journal, seen(19400, health.EvSessionLost, "cold", idF, journal.Record{Facts: health.Loss{Incident: true}, Detail: "lost D"}),
		seen(19800, health.EvRecovered, "cold", idF, journal.Record{Detail: "back F"}))
	in.Notes[len(in.Notes)-1].At = at(19350)
	in.Notes = append(in.Notes, note(19401, "cold: session lost — the watchdog is healing it", "lost D"),
		note(19801, "cold recovered in 400ms", "back F"))
	checkProblems(t, Evaluate(in), "")
}

// Two losses held by a journal outage come out together in the same words,
// and so do their bubbles: each bubble is one incident's.
func TestEvaluateHeldBubblesOneEach(t *testing.T) {
	in := lostAndBack()
	const idE = "eeee5555-0000-0000-0000-00000000eeee"
	in.Events = append(in.Events, ServerEvent{At: at(9600), Server: "warm", Start: true, ID: idE, Client: "host"},
		ServerEvent{At: at(9700), Server: "warm", ID: idC, Reason: "idle"})
	in.Journal = append(in.Journal, seen(9810, health.EvSessionLost, "warm", idC, journal.Record{Facts: health.Loss{Incident: true}, Detail: "lost L"}),
		seen(9811, health.EvRecovered, "warm", idC, journal.Record{Detail: "back R"}))
	in.Notes = []Note{note(9820, "warm: session lost — x", "lost L"), note(9821, "warm recovered in 600ms", "back R"),
		note(9822, "warm: session lost — x", "lost L"), note(9823, "warm recovered in 1ms", "back R")}
	checkProblems(t, Evaluate(in), "")
}

// A loss within a storm's window of the daemon's final crash may wait for
// the storm's summary, which only a next start would show: not untold. One
// longer before the crash is.
func TestEvaluateLossHeldAtTheFinalCrash(t *testing.T) {
	in := stormInput() // cold's loss at 9.21 s is untold
	in.Stopped = at(9210 + 5000)
	checkProblems(t, Evaluate(in), "")
	in.Stopped = at(9210 + 12000)
	checkProblems(t, Evaluate(in), "cold: 1 incidents but 0 loss notifications and 0 in summaries: 1 untold")
	// A kill -9 after the loss, and a start within a storm's window of the
	// final crash: that start re-held the loss for a summary not yet due.
	in.Journal = append(append([]Seen{seen(0, health.EvStarted, "", "", journal.Record{})}, in.Journal...),
		seen(9210+8000, health.EvStarted, "", "", journal.Record{}))
	checkProblems(t, Evaluate(in), "")
	in.Journal[len(in.Journal)-1].At = at(9210 + 500) // that start came long before the end: untold
	checkProblems(t, Evaluate(in), "cold: 1 incidents but 0 loss notifications and 0 in summaries: 1 untold")
}
