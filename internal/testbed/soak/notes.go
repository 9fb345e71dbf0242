package soak

import (
	"strings"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/notify"
)

// Notification shapes the soak tells apart besides notify's About values.
const (
	noteSummary = "summary" // "MCP watchdog: 3 more servers lost their sessions"
	noteOther   = "other"
	// summaryPrefix starts the title of a storm's summary notification.
	summaryPrefix = "MCP watchdog: "
)

// notifications counts incidents, recoveries and the notifications of each
// shape, per server.
func (r *Report) notifications(in Input, idx journalIndex) {
	r.Resent = idx.resent
	r.Incidents, r.Recovered = map[string]int{}, map[string]int{}
	r.LossNotes, r.RecoveredNotes, r.FoldedLoss = map[string]int{}, map[string]int{}, map[string]int{}
	r.HeldAtTheEnd = map[string]int{}
	reheldFrom, reheldTo := reheld(in)
	r.RecoveredAtTheEnd = map[string]int{}
	atTheEnd := func(at time.Time) bool {
		return !in.Stopped.IsZero() && (at.After(in.Stopped.Add(-notify.StormWindow-DetectWithin)) || at.After(reheldFrom) && at.Before(reheldTo))
	}
	for _, inc := range idx.incidents {
		r.Incidents[inc.server]++
		switch {
		case atTheEnd(in.Journal[inc.lost].At):
			r.HeldAtTheEnd[inc.server]++
		case inc.closed >= 0 && atTheEnd(in.Journal[inc.closed].At):
			// Told, but its outcome may still be queued or folded into a
			// storm's summary not yet due when the final kill -9 came.
			r.RecoveredAtTheEnd[inc.server]++
		}
	}
	for _, seen := range in.Journal {
		if seen.Rec.Kind == health.EvRecovered {
			r.Recovered[seen.Rec.Server]++
		}
	}
	for _, n := range in.Notes {
		server, about := noteKind(n.Title, in.Servers)
		switch about {
		case notify.AboutLost:
			r.LossNotes[server]++
			if strings.HasSuffix(n.Title, notify.HealedLossSuffix) {
				r.RecoveredNotes[server]++ // it tells the loss and its end
			}
		case notify.AboutRecovered:
			r.RecoveredNotes[server]++
		case noteSummary:
			r.summary(n.Title)
		case noteOther:
			r.OtherNotes++
		}
	}
}

// reheld is the run whose untold losses a start within a storm's window of
// the final crash re-sent: the redelivery folds them into a storm whose
// summary the crash may come before (soak seed 1796285204583604913: a loss
// held 9 s before a kill -9, re-held by the start 9 s before the end). Its
// span is from the start before that last one to the last one; zero when
// the last start came earlier.
func reheld(in Input) (from, to time.Time) {
	var starts []time.Time
	for _, seen := range in.Journal {
		if seen.Rec.Kind == health.EvStarted {
			starts = append(starts, seen.At)
		}
	}
	if len(starts) < 2 || in.Stopped.IsZero() {
		return time.Time{}, time.Time{}
	}
	window := notify.StormWindow + DetectWithin
	last := starts[len(starts)-1]
	if !last.After(in.Stopped.Add(-window)) {
		return time.Time{}, time.Time{}
	}
	// A run killed within a storm's window of its own start never sent the
	// summary it folded its re-sent losses into: the next start re-sent
	// them again, so they reach back to the run before it (soak seed
	// 1796033718940005853: a loss held at 13:09:08 by a run killed at
	// 13:09:15, re-held by starts 4 s apart, the last 10 s before the end).
	k := len(starts) - 2
	for k > 0 && starts[k+1].Sub(starts[k]) < window {
		k--
	}
	return starts[k], last
}

// noteKind reads a notification title the way internal/notify writes them:
// its server and what it is about (notify's About values, noteSummary or
// noteOther).
func noteKind(title string, servers map[string]ServerInfo) (server, about string) {
	if strings.HasPrefix(title, summaryPrefix) {
		return "", noteSummary
	}
	shapes := []struct{ suffix, about string }{
		{": session lost", notify.AboutLost},
		{" recovered", notify.AboutRecovered},
		{": healing failed", notify.AboutHealFailed},
		{": session at risk", notify.AboutAtRisk},
		{": session still lost", notify.AboutReminder},
	}
	for name := range servers {
		for _, s := range shapes {
			if strings.HasPrefix(title, name+s.suffix) {
				return name, s.about
			}
		}
	}
	return "", noteOther
}

// summary counts a storm's summary: a lost summary tells the loss of each
// server it names, as often as it names it; a recovered one, its recovery.
func (r *Report) summary(title string) {
	r.Notify.Summaries++
	about, servers, ok := notify.ParseSummary(title)
	if !ok {
		r.OtherNotes++
		return
	}
	for _, server := range servers {
		switch about {
		case notify.AboutLost:
			r.Notify.SummaryCovers++
			r.FoldedLoss[server]++
		case notify.AboutRecovered:
			r.RecoveredNotes[server]++
		}
	}
}

// aboutKind is the event kind a notification about about reports.
func aboutKind(about string) health.EventKind {
	switch about {
	case notify.AboutLost:
		return health.EvSessionLost
	case notify.AboutRecovered:
		return health.EvRecovered
	case notify.AboutHealFailed:
		return health.EvHealFailed
	case notify.AboutAtRisk:
		return health.EvSessionAtRisk
	}
	return ""
}

// noteRecord finds the journal record a notification was about: of its
// kind and server, nearest in time, one whose detail begins the
// notification's body first (internal/notify shows the event's detail, a
// loss told late adds how it recovered, and is about a loss recovered by
// then), and not journaled after it. -1: none.
func noteRecord(j []Seen, idx journalIndex, n Note, server string, kind health.EventKind) int {
	return noteRecordFree(j, idx, n, server, kind, nil)
}

// noteRecordFree is noteRecord preferring records no earlier notification
// claimed: events held by a journal outage come out together in the same
// words, and so do their bubbles, one each.
func noteRecordFree(j []Seen, idx journalIndex, n Note, server string, kind health.EventKind, claimed map[int]bool) int {
	best, bestCost := -1, time.Duration(0)
	for _, i := range idx.byKind[kindKey(server, kind)] {
		cost := n.At.Sub(j[i].At).Abs()
		if !strings.HasPrefix(n.Body, j[i].Rec.Detail) {
			cost += time.Minute
		}
		if j[i].At.After(n.At.Add(claimSlack)) {
			cost += time.Minute // a bubble follows its event's journaling
		}
		if strings.HasSuffix(n.Title, notify.HealedLossSuffix) && !recoveredBy(j, idx, i, n.At.Add(claimSlack)) {
			cost += time.Minute // it says the loss has since recovered
		}
		if claimed[i] {
			cost += 30 * time.Second
		}
		if best < 0 || cost < bestCost {
			best, bestCost = i, cost
		}
	}
	return best
}

// recoveredBy: the incident record i belongs to was closed by t.
func recoveredBy(j []Seen, idx journalIndex, i int, t time.Time) bool {
	k := idx.openAt[i]
	if k < 0 {
		return false
	}
	c := idx.incidents[k].closed
	return c >= 0 && !j[c].At.After(t)
}

// incidentAt is the incident open on server when a notification came at
// t (the latest opened before it, unless closed before it). -1: none.
func incidentAt(j []Seen, idx journalIndex, server string, t time.Time) int {
	found := -1
	for k, inc := range idx.incidents {
		if inc.server == server && !j[inc.lost].At.After(t.Add(claimSlack)) {
			found = k
		}
	}
	if found >= 0 {
		if c := idx.incidents[found].closed; c >= 0 && j[c].At.Before(t.Add(-claimSlack)) {
			return -1
		}
	}
	return found
}

// outcomeProblems: per server, loss notifications (its own, and its
// entries in storm summaries) match incidents and recovered notifications
// match recoveries, up to what a restart re-sent; an incident told only in
// a summary may have no recovered notification (the summary said it had
// recovered, or its recovery folded with it).
func (r *Report) outcomeProblems() {
	short := map[string]int{}
	for server, n := range r.Incidents {
		got, folded, extra := r.LossNotes[server], r.FoldedLoss[server], r.Resent[server+" lost"]
		r.add(got+folded > n+extra, "%s: %d incidents but %d loss notifications and %d in summaries (%d re-sent after a kill -9)",
			server, n, got, folded, extra)
		r.add(got+folded < n-r.HeldAtTheEnd[server], "%s: %d incidents but %d loss notifications and %d in summaries: %d untold",
			server, n, got, folded, n-got-folded)
		// A loss re-sent after a kill -9 is the same incident told again:
		// it leaves one more incident told only in a summary, or untold.
		short[server] = max(0, n-(got-extra))
	}
	for server, n := range r.LossNotes {
		r.add(r.Incidents[server] == 0 && n > 0, "%s: %d loss notifications without an incident", server, n)
	}
	for server, n := range r.Recovered {
		got, extra := r.RecoveredNotes[server], r.Resent[server+" recovered"]
		r.add(got < n-short[server]-r.RecoveredAtTheEnd[server] || got > n+extra, "%s: %d recoveries but %d recovered notifications (%d re-sent after a kill -9)",
			server, n, got, extra)
	}
}
