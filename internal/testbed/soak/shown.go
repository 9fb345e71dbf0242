package soak

import (
	"github.com/mcpwatchdog/watchdog/internal/health"
)

// shownRecords pairs each notification with the notified record its run
// journaled once it had shown it: the first not yet paired with its title,
// read no earlier than claimSlack before it, and journaled before the next
// run started (a kill -9 between showing and journaling leaves a bubble
// with none). -1: none. Through the record's thread a bubble is known to
// be about one incident, where its words and time only make it likely.
func shownRecords(in Input) []int {
	out := make([]int, len(in.Notes))
	used := map[int]bool{}
	for n, note := range in.Notes {
		out[n] = -1
		for i, s := range in.Journal {
			if s.Rec.Kind == health.EvStarted && s.At.After(note.At) {
				break
			}
			title, _ := s.Rec.Extra["title"].(string)
			if s.Rec.Kind != health.EvNotified || used[i] || title != note.Title || s.At.Before(note.At.Add(-claimSlack)) {
				continue
			}
			out[n], used[i] = i, true
			break
		}
	}
	return out
}
