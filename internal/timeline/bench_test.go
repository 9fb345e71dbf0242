package timeline

import (
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/journal"
)

// weekJournal is 10,000 events over 7 days on three servers: sessions
// with pings, expiries, and an incident now and then.
func weekJournal() []journal.Record {
	var recs []journal.Record
	step := 7 * 24 * time.Hour / 10000
	servers := []string{"mem", "notes", "search"}
	for i := 0; len(recs) < 10000; i++ {
		server := servers[i%len(servers)]
		id := fmt.Sprintf("%04x…%04x", i, i)
		r := func(k health.EventKind) journal.Record {
			return journal.Record{Time: t0.Add(time.Duration(len(recs)) * step), Kind: k, Server: server, Session: id, Facts: ofClient(k, "dsh-mcp-client")}
		}
		recs = append(recs, r(health.EvSessionNew))
		for range 5 {
			recs = append(recs, r(health.EvKeepWarm))
		}
		end := r(health.EvSessionExpired)
		if i%10 == 0 {
			end = r(health.EvSessionLost)
			end.Facts = health.Loss{Incident: true}
			recs = append(recs, end, r(health.EvHealStarted))
			rec := r(health.EvRecovered)
			rec.Facts = health.Recovery{Took: 300 * time.Millisecond}
			recs = append(recs, rec)
			continue
		}
		recs = append(recs, end)
	}
	return recs
}

// BenchmarkTimelineWeek: the goal is under 2 s for a 7-day journal of
// 10,000 events (make bench).
func BenchmarkTimelineWeek(b *testing.B) {
	recs := weekJournal()
	from, to := recs[0].Time, recs[len(recs)-1].Time
	for b.Loop() {
		if err := Render(io.Discard, Build(recs, from, to), Options{Generated: to}); err != nil {
			b.Fatal(err)
		}
	}
}
