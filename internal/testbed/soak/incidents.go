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
}

func kindKey(server string, kind health.EventKind) string { return server + "\x00" + string(kind) }

// indexJournal reads the incidents, the record each notification may be
// about, and what was re-sent after a kill -9.
func indexJournal(j []Seen) journalIndex {
	x := journalIndex{openAt: make([]int, len(j)), byKind: map[string][]int{}}
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
	x.resent, x.resentIncident = resent(j, x.openAt)
	return x
}

// resent counts "notified" records of a run for an event a previous run
// journaled: what a restart showed because its predecessor had not
// recorded showing it. By server and about, and by incident (the previous
// run's last event of its key). A run's notified records beyond the events
// it journaled itself are the re-sends, counted as they come: a re-send's
// record may follow the run's own next event of that server (soak seed
// 1796033718940005853), so which record is the re-send cannot be told by
// order, only how many there are.
func resent(j []Seen, openAt []int) (map[string]int, map[int]int) {
	out, byIncident := map[string]int{}, map[int]int{}
	lastEvent := map[string]int{}   // server+about → index of its latest event
	prevEvent := map[string]int{}   // the same, as the current run started
	runEvents := map[string]int{}   // events the current run journaled
	runNotified := map[string]int{} // and notified records it wrote
	for i, s := range j {
		key := ""
		switch s.Rec.Kind {
		case health.EvStarted:
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
			for _, k := range notifiedKeys(s.Rec) {
				runNotified[k]++
				if ev, ok := prevEvent[k]; ok && runNotified[k] > runEvents[k] {
					out[k]++
					byIncident[openAt[ev]]++
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
