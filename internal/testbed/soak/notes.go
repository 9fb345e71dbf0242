package soak

import (
	"strconv"
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
	r.LossNotes, r.RecoveredNotes = map[string]int{}, map[string]int{}
	for _, inc := range idx.incidents {
		r.Incidents[inc.server]++
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
		case notify.AboutRecovered:
			r.RecoveredNotes[server]++
		case noteSummary:
			r.Notify.Summaries++
			r.Notify.SummaryCovers += summaryCovers(n.Title)
		case noteOther:
			r.OtherNotes++
		}
	}
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

// summaryCovers is how many incidents a summary stands for: the number in
// its title ("3 more servers ..."), else one.
func summaryCovers(title string) int {
	for _, f := range strings.Fields(strings.TrimPrefix(title, summaryPrefix)) {
		if n, err := strconv.Atoi(f); err == nil && n > 0 {
			return n
		}
	}
	return 1
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
// kind and server, nearest in time, one whose detail is the notification's
// body first (internal/notify shows the event's detail). -1: none.
func noteRecord(j []Seen, idx journalIndex, n Note, server string, kind health.EventKind) int {
	best, bestCost := -1, time.Duration(0)
	for _, i := range idx.byKind[kindKey(server, kind)] {
		cost := n.At.Sub(j[i].At).Abs()
		if j[i].Rec.Detail != n.Body {
			cost += time.Minute
		}
		if best < 0 || cost < bestCost {
			best, bestCost = i, cost
		}
	}
	return best
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

// outcomeProblems: per server, loss notifications match incidents and
// recovered notifications match recoveries, up to what a restart re-sent;
// an incident with no loss notification of its own must be in a summary,
// and then its recovery is not told either.
func (r *Report) outcomeProblems() {
	short, missing := map[string]int{}, 0
	for server, n := range r.Incidents {
		got, extra := r.LossNotes[server], r.Resent[server+" lost"]
		r.add(got > n+extra, "%s: %d incidents but %d loss notifications (%d re-sent after a kill -9)", server, n, got, extra)
		if got < n {
			short[server], missing = n-got, missing+n-got
		}
	}
	if missing > r.Notify.SummaryCovers {
		for server, k := range short {
			r.add(true, "%s: %d incidents but %d loss notifications (%d untold; summaries stand for %d in all)",
				server, r.Incidents[server], r.LossNotes[server], k, r.Notify.SummaryCovers)
		}
	}
	for server, n := range r.LossNotes {
		r.add(r.Incidents[server] == 0 && n > 0, "%s: %d loss notifications without an incident", server, n)
	}
	for server, n := range r.Recovered {
		got, extra := r.RecoveredNotes[server], r.Resent[server+" recovered"]
		r.add(got < n-short[server] || got > n+extra, "%s: %d recoveries but %d recovered notifications (%d re-sent after a kill -9)",
			server, n, got, extra)
	}
}
