package soak

import (
	"fmt"
	"strings"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/health"
)

// FaultFigures judge the injected journal write failures: nothing the
// daemon decided meanwhile is lost (it is written once the journal can be
// written again, in order), and a warning says the journal failed.
type FaultFigures struct {
	Spans    int      // injected failures
	Events   int      // expiries and losses detected during one (judged from its end)
	Lost     []string // of those, never journaled
	Warned   int      // failures followed by a warning about the journal
	Unwarned []string // failures no such warning followed
}

// journalWarnings: after each failure a `warning` whose detail names the
// journal, within the flush bound; when failures came back to back (see
// faultGroups), one warning after the last may do for all.
func (r *Report) journalWarnings(in Input) {
	f := &r.JournalFail
	f.Spans = len(in.JournalFault)
	groups := faultGroups(in.JournalFault)
	for _, span := range in.JournalFault {
		until := span.To
		for _, g := range groups {
			if g.contains(span.From) && !g.To.IsZero() {
				until = g.To
			}
		}
		within := JournalFlushWithin + DetectWithin
		until = runningRef(in.WatchdogDown, until, within).Add(within)
		if journalWarned(in.Journal, span, until) {
			f.Warned++
			continue
		}
		f.Unwarned = append(f.Unwarned, fmt.Sprintf("%s→%s%s", fmtTime(span.From), fmtTime(span.To),
			downNote(in.WatchdogDown, span.From, until)))
	}
}

// journalWarned: a warning about the journal read in [span.From, until].
func journalWarned(j []Seen, span Span, until time.Time) bool {
	for _, s := range j {
		if s.Rec.Kind == health.EvWarning && strings.Contains(strings.ToLower(s.Rec.Detail), "journal") &&
			!s.At.Before(span.From) && !s.At.After(until) {
			return true
		}
	}
	return false
}
