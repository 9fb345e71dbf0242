package daemon

import (
	"fmt"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/journal"
	"github.com/mcpwatchdog/watchdog/internal/mask"
	"github.com/mcpwatchdog/watchdog/monitor/follow"
)

// restoreWindow is how much of the journal a start reads back.
const restoreWindow = 4 << 20

// restored is what a start takes back from the journal: the log positions
// whose events are already journaled (so a kill -9 between journaling and
// checkpointing repeats nothing), and the incidents still open.
type restored struct {
	resume    []follow.Position
	incidents map[string]journal.Record // server → its open session_lost
	// cutOff: the losses of proxied servers whose recovery a kill -9 kept
	// out of the journal (the proxy writes both at once), by index.
	cutOff map[int]bool
}

func restore(recs []journal.Record, proxied func(server string) bool) restored {
	r := restored{incidents: map[string]journal.Record{}, cutOff: map[int]bool{}}
	open := map[string]int{} // server → index of its open session_lost
	latest := map[string]follow.Position{}
	for i, rec := range recs {
		if pos, ok := sourcePosition(rec); ok {
			key := pos.Path + "\x00" + pos.Fingerprint
			if pos.Offset > latest[key].Offset {
				latest[key] = pos
			}
		}
		switch rec.Kind {
		case health.EvSessionLost:
			if rec.Incident {
				open[rec.Server] = i
			}
		case health.EvRecovered:
			delete(open, rec.Server)
		}
	}
	for _, pos := range latest {
		r.resume = append(r.resume, pos)
	}
	// A proxied server's loss is never left open: the proxy met it on a
	// host's call and answered that call itself.
	for server, i := range open {
		if proxied(server) {
			r.cutOff[i] = true
		} else {
			r.incidents[server] = recs[i]
		}
	}
	return r
}

// forNotifier is recs without the cut-off losses, so the notifier does not
// take them for incidents still open either.
func (r restored) forNotifier(recs []journal.Record) []journal.Record {
	if len(r.cutOff) == 0 {
		return recs
	}
	out := make([]journal.Record, 0, len(recs))
	for i, rec := range recs {
		if !r.cutOff[i] {
			out = append(out, rec)
		}
	}
	return out
}

func sourcePosition(rec journal.Record) (follow.Position, bool) {
	if rec.Log.File == "" || rec.Log.Fingerprint == "" || rec.Log.Offset <= 0 {
		return follow.Position{}, false
	}
	return follow.Position{Path: rec.Log.File, Fingerprint: rec.Log.Fingerprint, Offset: rec.Log.Offset}, true
}

// reopen reopens the incidents the journal left open, each with the lost
// session's full id from the private state when it has it (the journal's
// masked id is only used to check it is the same loss), or none.
func (d *daemon) reopen(r restored, saved trackedFile) {
	for server, rec := range r.incidents {
		d.model.RestoreIncident(server, lostID(rec, saved), rec.Time)
	}
}

// lostID finds the full id of an incident's lost session: the private
// state's open incident of that server, or else the one tracked session
// whose id masks like the journal's. "" when neither says for sure.
func lostID(rec journal.Record, saved trackedFile) string {
	if rec.Session == "" {
		return ""
	}
	if in, ok := saved.Incidents[rec.Server]; ok && mask.ID(in.Session) == rec.Session {
		return in.Session
	}
	found := ""
	for _, st := range saved.Servers[rec.Server] {
		if mask.ID(st.ID) != rec.Session {
			continue
		}
		if found != "" {
			return "" // a shared mask: not sure which
		}
		found = st.ID
	}
	return found
}

// restoreTracked seeds the model with the sessions the last run tracked, so
// the first snapshot reports what ended while the daemon was down, and
// returns the private state for the incidents.
func (d *daemon) restoreTracked(recs []journal.Record) trackedFile {
	saved, err := loadTracked(d.stateDir, recs)
	if err != nil {
		d.log.Warn("cannot restore the tracked sessions", "err", err)
	}
	now := d.now()
	for server, list := range saved.Servers {
		d.model.RestoreTracked(server, list, now)
	}
	d.tracked.resume(saved)
	return saved
}

// unreportedOutage is the warning a start owes for a journal outage the
// last run saved as under way and never ended with its own warning (a
// kill -9 before the retry, or a stop while the journal still failed).
// Its held events are not lost: their log lines were not acknowledged and
// the store changes are judged again, so the warning says only that.
func unreportedOutage(saved trackedFile, recs []journal.Record, now time.Time) []health.Event {
	out := saved.JournalOutage
	if out == nil {
		return nil
	}
	since := out.Since.UTC().Format(time.RFC3339Nano)
	for _, rec := range recs {
		if rec.Kind != health.EvWarning {
			continue
		}
		_, ended := rec.Extra["unwritable_ms"]
		if ended && !rec.Time.Before(out.Since) || rec.Extra["unwritable_since"] == since {
			return nil // it was warned of; only the save after that was cut off
		}
	}
	return []health.Event{{Time: now, Kind: health.EvWarning,
		Extra: map[string]any{"unwritable_since": since, "error": out.Error},
		Detail: fmt.Sprintf("the journal could not be written from %s until the watchdog stopped (%s); "+
			"what it held then was not acknowledged and is judged again at this start", out.Since.Format("15:04:05"), out.Error)}}
}
