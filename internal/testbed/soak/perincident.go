package soak

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/notify"
)

// NoteFigures are the notifications a person saw, per incident and per
// session: an incident is told by its loss and its outcome (at most 2, plus
// what a kill -9 made a restart show again) and reminders while it stays
// open; a session is warned at risk at most once; an incident's healing
// failure is told at most once.
type NoteFigures struct {
	MaxPerIncident int      // most loss + recovered notifications one incident got
	OverTwo        []string // incidents told more than loss + outcome (beyond re-sends)
	AtRisk         int      // at-risk notifications
	AtRiskSessions int      // sessions warned
	AtRiskRepeated []string // sessions warned more than once
	AtRiskAfterEnd int      // shown once the session's end was already journaled
	HealFailed     int      // healing-failed notifications
	// HealFailedRepeated: incidents told more than once that healing failed.
	HealFailedRepeated []string
	HealFailedOutside  []string // healing failed with no incident open
	Reminders          int
	RemindersOver      []string // more reminders than the incident's length allows
	Summaries          int      // storm summaries ("MCP watchdog: ...")
	SummaryCovers      int      // incidents the summaries stand for
	Unmatched          []string // at-risk or healing-failed notifications about nothing journaled
}

// noteTally counts notifications per incident and per session.
type noteTally struct {
	outcome, healFailed, reminders []int        // per incident
	told                           [][]string   // per incident: its loss and recovered notifications
	claimed                        map[int]bool // loss and recovered records a notification was matched to
	atRisk                         map[string]int
	atRiskOrder                    []string
}

// perIncident attributes each notification to what it was about, by the
// journal record it reports (the journal's order decides the incident,
// not the timing of the soak's reads), and judges the bounds.
func (r *Report) perIncident(in Input, idx journalIndex) {
	n := len(idx.incidents)
	t := noteTally{outcome: make([]int, n), healFailed: make([]int, n), reminders: make([]int, n), told: make([][]string, n),
		atRisk: map[string]int{}, claimed: map[int]bool{}}
	ends := endsSeen(in.Journal)
	shown := shownRecords(in)
	for n, note := range in.Notes {
		server, about := noteKind(note.Title, in.Servers)
		switch about {
		case notify.AboutLost, notify.AboutRecovered:
			if i, k := outcomeOf(in, idx, note, shown[n], server, about, t.claimed); k >= 0 {
				t.claimed[i] = true
				t.outcome[k]++
				t.told[k] = append(t.told[k], fmtTime(note.At)+" "+note.Title)
			}
		case notify.AboutHealFailed:
			r.Notify.HealFailed++
			r.healFailedNote(in, idx, &t, note, server)
		case notify.AboutAtRisk:
			r.Notify.AtRisk++
			r.atRiskNote(in, idx, &t, note, server, ends)
		case notify.AboutReminder:
			r.Notify.Reminders++
			if k := incidentAt(in.Journal, idx, server, note.At); k >= 0 {
				t.reminders[k]++
			} else {
				r.Notify.RemindersOver = append(r.Notify.RemindersOver, fmt.Sprintf("%s at %s: no incident open", server, fmtTime(note.At)))
			}
		}
	}
	r.judgeTally(in, idx, t)
}

// outcomeOf is the record a loss or recovered notification told, and its
// incident: by the thread of the notified record its run journaled
// (record; -1: none), else by its words and time. -1, -1: none.
func outcomeOf(in Input, idx journalIndex, note Note, record int, server, about string, claimed map[int]bool) (event, inc int) {
	if record >= 0 {
		if event, inc := idx.toldEvent(in.Journal, in.Journal[record].Rec); event >= 0 {
			return event, inc
		}
	}
	event = noteRecordFree(in.Journal, idx, note, server, aboutKind(about), claimed)
	if event < 0 || idx.openAt[event] < 0 {
		return -1, -1
	}
	return event, idx.openAt[event]
}

func (r *Report) healFailedNote(in Input, idx journalIndex, t *noteTally, note Note, server string) {
	i := noteRecord(in.Journal, idx, note, server, aboutKind(notify.AboutHealFailed))
	switch {
	case i < 0:
		r.Notify.Unmatched = append(r.Notify.Unmatched, fmt.Sprintf("%q at %s", note.Title, fmtTime(note.At)))
	case idx.openAt[i] < 0:
		r.Notify.HealFailedOutside = append(r.Notify.HealFailedOutside, fmt.Sprintf("%q at %s: %s", note.Title, fmtTime(note.At), note.Body))
	default:
		t.healFailed[idx.openAt[i]]++
	}
}

func (r *Report) atRiskNote(in Input, idx journalIndex, t *noteTally, note Note, server string, ends map[string]time.Time) {
	i := noteRecord(in.Journal, idx, note, server, aboutKind(notify.AboutAtRisk))
	if i < 0 {
		r.Notify.Unmatched = append(r.Notify.Unmatched, fmt.Sprintf("%q at %s", note.Title, fmtTime(note.At)))
		return
	}
	key := server + " " + in.Journal[i].Rec.Session
	if t.atRisk[key] == 0 {
		t.atRiskOrder = append(t.atRiskOrder, key)
	}
	t.atRisk[key]++
	if end, ok := ends[server+"\x00"+in.Journal[i].Rec.Session]; ok && !end.After(note.At) {
		r.Notify.AtRiskAfterEnd++
	}
}

// endsSeen: when the soak first read an end (expiry, end or loss) of each
// session in the journal, by server and masked id.
func endsSeen(j []Seen) map[string]time.Time {
	out := map[string]time.Time{}
	for _, s := range j {
		key := s.Rec.Server + "\x00" + s.Rec.Session
		if _, ok := out[key]; !ok && s.Rec.Session != "" && slices.Contains(endKinds(), s.Rec.Kind) {
			out[key] = s.At
		}
	}
	return out
}

// judgeTally turns the tallies into figures and broken bounds.
func (r *Report) judgeTally(in Input, idx journalIndex, t noteTally) {
	nf := &r.Notify
	for k, inc := range idx.incidents {
		nf.MaxPerIncident = max(nf.MaxPerIncident, t.outcome[k])
		what := fmt.Sprintf("%s %s lost at %s", inc.server, in.Journal[inc.lost].Rec.Session, fmtTime(in.Journal[inc.lost].At))
		if extra := idx.resentIncident[k]; t.outcome[k] > 2+extra {
			nf.OverTwo = append(nf.OverTwo, fmt.Sprintf("%s: %d (%d re-sent after a kill -9): %s", what, t.outcome[k], extra,
				strings.Join(t.told[k], "; ")))
		}
		if t.healFailed[k] > 1 {
			nf.HealFailedRepeated = append(nf.HealFailedRepeated, fmt.Sprintf("%s: %d", what, t.healFailed[k]))
		}
		if allowed := reminderBound(in, idx, k); t.reminders[k] > allowed {
			nf.RemindersOver = append(nf.RemindersOver, fmt.Sprintf("%s: %d reminders, %d allowed", what, t.reminders[k], allowed))
		}
	}
	nf.AtRiskSessions = len(t.atRisk)
	for _, key := range t.atRiskOrder {
		if t.atRisk[key] > 1 {
			nf.AtRiskRepeated = append(nf.AtRiskRepeated, fmt.Sprintf("%s: %d", key, t.atRisk[key]))
		}
	}
}

// reminderBound: one reminder per whole Reminder interval the incident
// stayed open (until its recovered, or the end of the soak).
func reminderBound(in Input, idx journalIndex, k int) int {
	if in.Reminder <= 0 {
		return 0
	}
	inc := idx.incidents[k]
	until := in.End
	if inc.closed >= 0 {
		until = in.Journal[inc.closed].At
	}
	return int(until.Sub(in.Journal[inc.lost].At) / in.Reminder)
}

func (r *Report) notifyProblems() {
	nf := r.Notify
	r.list(nf.OverTwo, "incidents told more than their loss and outcome")
	r.list(nf.AtRiskRepeated, "sessions warned at risk more than once")
	r.list(nf.HealFailedRepeated, "incidents told more than once that healing failed")
	r.list(nf.HealFailedOutside, "healing-failed notifications with no incident open")
	r.list(nf.RemindersOver, "reminders beyond one per reminder interval of an open incident")
	r.list(nf.Unmatched, "at-risk or healing-failed notifications about nothing journaled")
}
