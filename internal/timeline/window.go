package timeline

import (
	"time"

	"github.com/mcpwatchdog/watchdog/internal/journal"
)

// The page's span when no window is asked for: the journal's own first to
// last event, at least MinSpan (a run of seconds still fills the width
// without one event being the whole chart) and at most MaxSpan.
const (
	MinSpan = time.Minute
	MaxSpan = 7 * 24 * time.Hour
)

// JournalWindow is the window of recs' own first to last event, widened
// evenly on both sides to MinSpan, or cut to the MaxSpan before the last
// event. With no records it is the MinSpan before now.
func JournalWindow(recs []journal.Record, now time.Time) (from, to time.Time) {
	if len(recs) == 0 {
		return now.Add(-MinSpan), now
	}
	from, to = recs[0].Time, recs[0].Time
	for _, r := range recs[1:] { // rotated files may overlap by a line
		if r.Time.Before(from) {
			from = r.Time
		}
		if r.Time.After(to) {
			to = r.Time
		}
	}
	switch span := to.Sub(from); {
	case span < MinSpan:
		pad := (MinSpan - span) / 2
		from = from.Add(-pad)
		to = from.Add(MinSpan)
	case span > MaxSpan:
		from = to.Add(-MaxSpan)
	}
	return from, to
}
