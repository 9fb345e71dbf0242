package notify

import (
	"maps"
	"math"
	"slices"
	"time"

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
// went out (told as recovered), or a recovery whose loss was shown. Every
// incident counts, even several of one server. Runs before the previous
// one count as delivered (they may predate "notified" records).
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
	b := noteBook{lost: map[string][]*pendingNote{}, recovered: map[string][]*pendingNote{}}
	for i, r := range recs {
		if r.Kind == health.EvNotified {
			b.markShown(r)
			continue
		}
		for _, m := range scratch.observe(eventOf(r), r.Time, false) {
			b.note(&pendingNote{msg: m, shown: i < prev}, r.Took)
		}
	}
	return b.unshown()
}

// noteBook keeps, per server and in order, the loss and recovery notes of
// the incidents a journal tells.
type noteBook struct {
	lost, recovered map[string][]*pendingNote
}

// note files a note; took is how long the incident lasted (a recovery).
func (b *noteBook) note(n *pendingNote, took time.Duration) {
	server := n.msg.Server
	switch n.msg.About {
	case AboutLost:
		b.lost[server] = append(b.lost[server], n)
	case AboutRecovered:
		losses := b.lost[server]
		if len(losses) == 0 {
			return // its loss is in an earlier run: delivered
		}
		last := losses[len(losses)-1]
		if last.shown {
			b.recovered[server] = append(b.recovered[server], n)
			b.lost[server] = losses[:len(losses)-1]
			return
		}
		// Held for a summary a kill cut off, then recovered: still
		// untold, now as a loss that has since recovered.
		last.msg = healedLoss(last.msg, took)
	}
}

// markShown marks the notes a notified record says were shown, the
// oldest first: its server's, or one per server entry of a summary.
func (b *noteBook) markShown(r journal.Record) {
	set := map[string]map[string][]*pendingNote{AboutLost: b.lost, AboutRecovered: b.recovered,
		AboutLostSummary: b.lost, AboutRecoveredSummary: b.recovered}[r.About]
	servers := []string{r.Server}
	if r.About == AboutLostSummary || r.About == AboutRecoveredSummary {
		title, _ := r.Extra["title"].(string)
		_, servers, _ = ParseSummary(title)
	}
	for _, server := range servers {
		if i := slices.IndexFunc(set[server], func(p *pendingNote) bool { return !p.shown }); i >= 0 {
			set[server][i].shown = true
		}
	}
}

// unshown is every note not shown: losses, then recoveries, by server.
func (b *noteBook) unshown() []Message {
	var out []Message
	for _, set := range []map[string][]*pendingNote{b.lost, b.recovered} {
		for _, server := range slices.Sorted(maps.Keys(set)) {
			for _, p := range set[server] {
				if !p.shown {
					out = append(out, p.msg)
				}
			}
		}
	}
	return out
}
