package soak

import (
	"fmt"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/mask"
)

// recoveries: every recovered is genuine. Per the server's own record, a
// session of the incident's client (the host's, or for a proxied entry the
// client behind the proxy) opened after the incident's lost session died, still alive when the watchdog claimed it, and not the lost one;
// when the record names its new_session, that one.
func (r *Report) recoveries(in Input, all []*session, idx journalIndex) {
	byMask := sessionsByMask(all)
	for i, seen := range in.Journal {
		if seen.Rec.Kind != health.EvRecovered {
			continue
		}
		if why := notGenuine(in, all, byMask, idx, i); why != "" {
			r.NotGenuine = append(r.NotGenuine, fmt.Sprintf("%s recovered at %s: %s", seen.Rec.Server, fmtTime(seen.At), why))
			continue
		}
		r.Genuine++
	}
}

// notGenuine says why recovered record i is not genuine ("" when it is).
func notGenuine(in Input, all []*session, byMask map[string]*session, idx journalIndex, i int) string {
	rec := in.Journal[i].Rec
	k := idx.openAt[i]
	if k < 0 {
		return "no incident open on its server"
	}
	lostRec := in.Journal[idx.incidents[k].lost]
	lost := rec.Session
	if lost == "" {
		lost = lostRec.Rec.Session
	}
	// The new session cannot be older than the lost one's death (the host
	// opens one once it meets the loss); the loss record, read late, is a
	// bound only when the truth does not know the lost session.
	since := lostRec.At.Add(-DetectWithin)
	server, client := in.upstream(rec.Server), in.clientOf(rec.Server)
	if l := byMask[server+"\x00"+lost]; l != nil && !l.died.IsZero() {
		since = l.died.Add(-claimSlack)
	}
	from, to := claimWindow(in, in.Journal[i].At)
	want := newSession(rec)
	if want != "" && want == lost {
		return fmt.Sprintf("new_session %s is the lost session", want)
	}
	for _, s := range all {
		m := mask.ID(s.id)
		if s.server != server || s.client != client || m == lost || (want != "" && m != want) {
			continue
		}
		if !s.start.Before(since) && !s.start.After(to.Add(claimSlack)) && (s.died.IsZero() || !s.died.Before(from)) {
			return ""
		}
	}
	if want != "" {
		return fmt.Sprintf("new_session %s was no session of the host opened after the loss of %s and alive at the claim", want, lost)
	}
	return fmt.Sprintf("the host had no session other than the lost %s, opened after its loss and alive at the claim", lost)
}

// claimWindow is when a record the soak read at at was decided: just
// before, or, when a journal write failure held it, any time since the
// failure began.
func claimWindow(in Input, at time.Time) (from, to time.Time) {
	return minTime(at.Add(-claimSlack), decidedBy(in, at)), at
}
