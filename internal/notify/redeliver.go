package notify

import (
	"maps"
	"math"
	"slices"

	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/journal"
)

// pendingNote is a loss or recovery notification and whether the journal
// shows it was sent.
type pendingNote struct {
	msg   Message
	shown bool
}

// undelivered finds what the previous run decided to say but, killed
// between journaling the event and showing it, never showed: the loss of an
// incident still open, or of one that recovered before its storm's summary
// went out (told as recovered), or a recovery whose loss was shown. Runs before the
// previous one count as delivered (they may predate "notified" records).
func undelivered(recs []journal.Record) []Message {
	prev := -1
	for i, r := range recs {
		if r.Kind == health.EvStarted {
			prev = i
		}
	}
	if prev < 0 {
		return nil // no run to tell apart: take it all as delivered
	}
	scratch := newState()
	scratch.masked = true
	scratch.solo = math.MaxInt // each server's own news, whether a summary told it or not
	lost := map[string]*pendingNote{}
	recovered := map[string]*pendingNote{}
	for i, r := range recs {
		if r.Kind == health.EvNotified {
			markShown(lost, recovered, r)
			continue
		}
		for _, m := range scratch.observe(eventOf(r), r.Time, false) {
			note := &pendingNote{msg: m, shown: i < prev}
			switch m.About {
			case AboutLost:
				lost[m.Server] = note
			case AboutRecovered:
				l := lost[m.Server]
				if l == nil || l.shown {
					if l != nil {
						recovered[m.Server] = note
					}
					delete(lost, m.Server)
					continue
				}
				// Held for a summary a kill cut off, then recovered: still
				// untold, now as a loss that has since recovered.
				l.msg = healedLoss(l.msg, r.Took)
			}
		}
	}
	var out []Message
	for _, set := range []map[string]*pendingNote{lost, recovered} {
		for _, server := range slices.Sorted(maps.Keys(set)) {
			if p := set[server]; !p.shown {
				out = append(out, p.msg)
			}
		}
	}
	return out
}

// markShown marks the notes a notified record says were shown: its
// server's, or every server a summary's title names.
func markShown(lost, recovered map[string]*pendingNote, r journal.Record) {
	set := map[string]map[string]*pendingNote{AboutLost: lost, AboutRecovered: recovered,
		AboutLostSummary: lost, AboutRecoveredSummary: recovered}[r.About]
	servers := []string{r.Server}
	if r.About == AboutLostSummary || r.About == AboutRecoveredSummary {
		title, _ := r.Extra["title"].(string)
		_, servers, _ = ParseSummary(title)
	}
	for _, server := range servers {
		if p := set[server]; p != nil {
			p.shown = true
		}
	}
}
