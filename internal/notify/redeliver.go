package notify

import (
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/journal"
)

// pendingNote is a loss or recovery notification and whether the journal
// shows it was sent.
type pendingNote struct {
	msg   Message
	shown bool
	// recovery: the recovery folded into this loss while it was not yet
	// known to be shown (msg became "since recovered"). Its loss and its
	// recovery are journaled in one go, before the loss's notified record:
	// should that record say the loss went out as it was, the recovery
	// is still owed.
	recovery *pendingNote
}

// undelivered finds what earlier runs decided to say but, killed between
// journaling the event and showing it, never showed: the loss of an
// incident still open, or of one that recovered before its storm's summary
// went out (told as recovered), or a recovery whose loss was shown. Every
// incident counts, even several of one server. The runs judged are the
// previous one and, before it, those whose start says notifications were
// on (so their "notified" records tell what was shown), back to
// redeliverWithin: a storm held for its summary and cut off by two kills
// in a row is still told. Earlier runs count as delivered.
func undelivered(recs []journal.Record, nameHosts bool) []Message {
	prev := judgedFrom(recs)
	if prev < 0 {
		return nil // no run to tell apart: take it all as delivered
	}
	scratch := newState()
	scratch.masked, scratch.nameHosts = true, nameHosts
	scratch.solo = math.MaxInt // each server's own news, whether a summary told it or not
	scratch.budget = budget{}  // and whatever the budget said then
	b := noteBook{lost: map[string][]*pendingNote{}, recovered: map[string][]*pendingNote{}, adopted: map[string][]*pendingNote{}}
	for i, r := range recs {
		if r.Kind == health.EvNotified {
			b.markShown(r)
			continue
		}
		for _, m := range scratch.observe(eventOf(r), r.Time, false) {
			scratch.budget = budget{}
			b.note(&pendingNote{msg: m, shown: i < prev}, recoveryOf(eventOf(r)).Took)
		}
	}
	return b.unshown()
}

// redeliverWithin bounds how far back unshown news is told again: older
// news is stale, and a notification service broken for days must not
// make every start repeat all it missed.
const redeliverWithin = time.Hour

// judgedFrom is the index of the first started record of the runs
// undelivered judges, or -1 when there is none.
func judgedFrom(recs []journal.Record) int {
	var starts []int
	for i, r := range recs {
		if r.Kind == health.EvStarted {
			starts = append(starts, i)
		}
	}
	if len(starts) == 0 {
		return -1
	}
	from := starts[len(starts)-1]
	if on, said := recs[from].Extra[StartedNotifyKey]; said && on != true {
		return -1 // that run showed nothing, so it owes nothing
	}
	horizon := recs[len(recs)-1].Time.Add(-redeliverWithin)
	for k := len(starts) - 2; k >= 0; k-- {
		r := recs[starts[k]]
		if r.Extra[StartedNotifyKey] != true || r.Time.Before(horizon) {
			break
		}
		from = starts[k]
	}
	return from
}

// StartedNotifyKey is the started event's field that says whether that
// run showed notifications (and journaled each one it showed).
const StartedNotifyKey = "notify"

// noteBook keeps, per server and in order, the loss and recovery notes of
// the incidents a journal tells.
type noteBook struct {
	lost, recovered map[string][]*pendingNote
	// adopted: the outcomes of the tray's Protect. Its own config change
	// ends the run that did it, which may end before the bubble is shown.
	adopted map[string][]*pendingNote
}

// note files a note; took is how long the incident lasted (a recovery).
func (b *noteBook) note(n *pendingNote, took time.Duration) {
	server := n.msg.Server
	switch n.msg.About {
	case AboutAdopted:
		b.adopted[server] = append(b.adopted[server], n)
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
		// untold, now as a loss that has since recovered, unless a
		// notified record after it says it went out before the recovery.
		last.msg, last.recovery = healedLoss(last.msg, took), n
	}
}

// markShown marks the notes a notified record says were shown: the one
// of the incident its thread names, else the oldest; its server's, or one
// per server entry of a summary.
func (b *noteBook) markShown(r journal.Record) {
	n, _ := r.Facts.(health.Notice)
	set := map[string]map[string][]*pendingNote{AboutLost: b.lost, AboutRecovered: b.recovered,
		AboutLostSummary: b.lost, AboutRecoveredSummary: b.recovered, AboutAdopted: b.adopted}[n.About]
	servers := []string{r.Server}
	title, _ := r.Extra["title"].(string)
	if n.About == AboutLostSummary || n.About == AboutRecoveredSummary {
		_, servers, _ = ParseSummary(title)
	}
	for _, server := range servers {
		p := pending(set[server], n.Thread, func(p *pendingNote) bool { return true })
		if p == nil && (n.About == AboutRecovered || n.About == AboutRecoveredSummary) {
			// A recovery is told only for a loss that was: one filed with
			// its recovery folded in went out as a loss, and a kill -9 cut
			// off its record. Both are told.
			p = pending(b.lost[server], n.Thread, func(p *pendingNote) bool { return p.recovery != nil })
		}
		if p == nil {
			continue
		}
		p.shown = true
		if p.recovery != nil && n.About == AboutLost && !strings.HasSuffix(title, HealedLossSuffix) {
			// The loss went out as a loss: its recovery is news yet.
			b.recovered[server] = append(b.recovered[server], p.recovery)
			b.lost[server] = slices.DeleteFunc(b.lost[server], func(q *pendingNote) bool { return q == p })
		}
		p.recovery = nil
	}
}

// pending is the unshown note of notes that ok accepts: the one of thread
// when there is one, else the oldest. Nil: none.
func pending(notes []*pendingNote, thread string, ok func(*pendingNote) bool) *pendingNote {
	var oldest *pendingNote
	for _, p := range notes {
		if p.shown || !ok(p) {
			continue
		}
		if thread != "" && p.msg.Thread == thread {
			return p
		}
		if oldest == nil {
			oldest = p
		}
	}
	return oldest
}

// unshown is every note not shown: losses, then recoveries, by server.
func (b *noteBook) unshown() []Message {
	var out []Message
	for _, set := range []map[string][]*pendingNote{b.lost, b.recovered, b.adopted} {
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
