package soak

import (
	"maps"

	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/journal"
	"github.com/mcpwatchdog/watchdog/internal/notify"
)

// jIncident is one incident as the journal tells it: a session_lost with
// incident set opens it on its server, the next recovered there closes it.
type jIncident struct {
	server string
	lost   int // journal index of its session_lost
	closed int // journal index of the recovered that closed it; -1: none
}

// journalIndex is what several judgements read of the journal, in its own
// order (which no timing of the soak's reads can blur).
type journalIndex struct {
	incidents []jIncident
	// openAt is, per record, the incident open on its server at it (the
	// session_lost opening one and the recovered closing one included);
	// -1: none.
	openAt []int
	// byKind: records by server and kind (session_lost: incidents only),
	// in journal order, for finding what a notification was about.
	byKind map[string][]int
	// resent: notifications a restarted daemon showed again for an event of
	// its predecessor, by server and about, and by incident.
	resent         map[string]int
	resentIncident map[int]int
	// threads: each incident by its thread (notify.Thread), which the
	// notified records of its bubbles carry.
	threads map[string]int
}

func kindKey(server string, kind health.EventKind) string { return server + "\x00" + string(kind) }

// indexJournal reads the incidents, the record each notification may be
// about, and what was re-sent after a kill -9.
func indexJournal(j []Seen) journalIndex {
	x := journalIndex{openAt: make([]int, len(j)), byKind: map[string][]int{}, threads: map[string]int{}}
	open := map[string]int{}
	for i, s := range j {
		rec := s.Rec
		x.openAt[i] = -1
		if k, ok := open[rec.Server]; ok {
			x.openAt[i] = k
		}
		switch rec.Kind {
		case health.EvSessionLost:
			if !incident(rec) {
				continue
			}
			open[rec.Server] = len(x.incidents)
			x.openAt[i] = len(x.incidents)
			x.threads[notify.Thread(rec.Server, rec.Time)] = len(x.incidents)
			x.incidents = append(x.incidents, jIncident{server: rec.Server, lost: i, closed: -1})
		case health.EvRecovered:
			if k, ok := open[rec.Server]; ok {
				x.incidents[k].closed = i
				delete(open, rec.Server)
			}
		}
		key := kindKey(rec.Server, rec.Kind)
		x.byKind[key] = append(x.byKind[key], i)
	}
	x.resent, x.resentIncident = resent(j, x)
	return x
}

// toldEvent is the record a notified record's bubble told, found by the
// thread it carries: its incident's loss, or the recovery that ended it;
// and that incident. -1, -1: no thread (a summary, or a journal from
// before records carried one), or none the journal tells.
func (x journalIndex) toldEvent(j []Seen, rec journal.Record) (event, inc int) {
	n, _ := rec.Facts.(health.Notice)
	k, ok := x.threads[n.Thread]
	if !ok || n.Thread == "" {
		return -1, -1
	}
	lost := x.incidents[k].lost
	switch n.About {
	case notify.AboutLost:
		return lost, k
	case notify.AboutRecovered:
		for i := lost + 1; i < len(j); i++ {
			if j[i].Rec.Kind == health.EvRecovered && j[i].Rec.Server == j[lost].Rec.Server {
				return i, k
			}
		}
	}
	return -1, -1
}

// resent counts "notified" records of a run for an event a previous run
// journaled: what a restart showed because its predecessor had not
// recorded showing it. By server and about, and by incident.
//
// A record that carries its incident's thread says which event it told:
// a re-send when that event came before the run's start. One that does
// not (a summary, or a journal from before records carried threads) is
// counted: a run's notified records beyond the events it journaled itself
// are the re-sends, counted as they come and put on the previous run's
// last event of their key, since a re-send's record may follow the run's
// own next event of that server (soak seed 1796033718940005853). Counting
// misses a re-send when the run's own event had no bubble of its own (CI
// at ef870f8); the thread does not.
func resent(j []Seen, x journalIndex) (map[string]int, map[int]int) {
	out, byIncident := map[string]int{}, map[int]int{}
	lastEvent := map[string]int{}   // server+about → index of its latest event
	prevEvent := map[string]int{}   // the same, as the current run started
	runEvents := map[string]int{}   // events the current run journaled
	runNotified := map[string]int{} // and notified records it wrote
	runStart := -1
	for i, s := range j {
		key := ""
		switch s.Rec.Kind {
		case health.EvStarted:
			runStart = i
			prevEvent = maps.Clone(lastEvent)
			clear(runEvents)
			clear(runNotified)
		case health.EvSessionLost:
			if incident(s.Rec) {
				key = s.Rec.Server + " lost"
			}
		case health.EvRecovered:
			key = s.Rec.Server + " recovered"
		case health.EvNotified:
			if ev, inc := x.toldEvent(j, s.Rec); ev >= 0 {
				k := s.Rec.Server + " " + aboutOf(s.Rec)
				if ev < runStart {
					out[k]++
					byIncident[inc]++
				} else {
					runNotified[k]++
				}
				continue
			}
			for _, k := range notifiedKeys(s.Rec) {
				runNotified[k]++
				if ev, ok := prevEvent[k]; ok && runNotified[k] > runEvents[k] {
					out[k]++
					byIncident[x.openAt[ev]]++
				}
			}
		}
		if key != "" {
			lastEvent[key] = i
			runEvents[key]++
		}
	}
	return out, byIncident
}

// notifiedKeys are the server+about keys a notified record tells: its
// own, or for a storm's summary one per server entry of its title (a
// restart's re-sends fold into a summary like any other bubbles).
func notifiedKeys(r journal.Record) []string {
	title, _ := r.Extra["title"].(string)
	about, servers, ok := notify.ParseSummary(title)
	if !ok || r.Server != "" {
		return []string{r.Server + " " + aboutOf(r)}
	}
	keys := make([]string, len(servers))
	for i, server := range servers {
		keys[i] = server + " " + about
	}
	return keys
}
