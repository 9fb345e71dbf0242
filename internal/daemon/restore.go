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
	resume []follow.Position
	// incidents: each watched host's open session_lost, by incidentKey.
	incidents map[string]journal.Record
	// cutOff: the losses of proxied servers whose recovery a kill -9 kept
	// out of the journal (the proxy writes both at once), by index.
	cutOff map[int]bool
	// heals: each watched host's last heal_started, by incidentKey: the
	// client may act on its trigger after the restart.
	heals map[string]journal.Record
}

// restore reads recs back. keyOf says whose incident a record is about
// (incidentKey), "" for a host no longer watched.
func restore(recs []journal.Record, proxied func(server string) bool, keyOf func(journal.Record) string) restored {
	r := restored{incidents: map[string]journal.Record{}, cutOff: map[int]bool{}, heals: map[string]journal.Record{}}
	open := map[string]int{} // incidentKey → index of its open session_lost
	latest := map[string]follow.Position{}
	for i, rec := range recs {
		if pos, ok := sourcePosition(rec); ok {
			key := pos.Path + "\x00" + pos.Fingerprint
			if pos.Offset > latest[key].Offset {
				latest[key] = pos
			}
		}
		switch key := keyOf(rec); {
		case key == "":
		case rec.Kind == health.EvSessionLost && incident(rec):
			open[key] = i
		case rec.Kind == health.EvRecovered:
			delete(open, key)
		case rec.Kind == health.EvHealStarted:
			r.heals[key] = rec
		}
	}
	for _, pos := range latest {
		r.resume = append(r.resume, pos)
	}
	// A proxied server's loss is never left open: the proxy met it on a
	// host's call and answered that call itself.
	for key, i := range open {
		if proxied(recs[i].Server) {
			r.cutOff[i] = true
		} else {
			r.incidents[key] = recs[i]
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
	for key, rec := range r.incidents {
		if h := d.recordHost(rec); h != nil {
			h.model.RestoreIncident(rec.Server, lostID(rec, key, saved), rec.Time)
		}
	}
	for _, rec := range r.heals {
		if h := d.recordHost(rec); h != nil {
			h.model.RestoreHealStarted(rec.Server, rec.Time)
		}
	}
}

// recordHost is the watched host a journal record is about: the one it
// names, the main host when it names none (lines written before records
// named their host); nil for a host no longer watched.
func (d *daemon) recordHost(rec journal.Record) *hostWatch {
	name, _ := rec.Extra["host"].(string)
	if name == "" {
		return d.mainHost()
	}
	return d.watched.named(name)
}

// recordKey is the incidentKey of a record's host and server; "" for a
// host no longer watched.
func (d *daemon) recordKey(rec journal.Record) string {
	h := d.recordHost(rec)
	if h == nil {
		return ""
	}
	return incidentKey(h, rec.Server)
}

// incidentKey names one host's incident on a server in the private state:
// the server's name for the main host (as when there was one host), and
// server@host for each other (a server's name has no '@').
func incidentKey(h *hostWatch, server string) string {
	if h.main {
		return server
	}
	return server + "@" + h.cfg.Name
}

// lostID finds the full id of an incident's lost session: the private
// state's open incident under key (incidentKey), or else the one tracked
// session whose id masks like the journal's. "" when neither says for sure.
func lostID(rec journal.Record, key string, saved trackedFile) string {
	if rec.Session == "" {
		return ""
	}
	if in, ok := saved.Incidents[key]; ok && mask.ID(in.Session) == rec.Session {
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
		parts := map[*hostWatch][]health.StoreSession{}
		for _, ss := range list {
			h := d.watched.clientHost(ss.Client)
			parts[h] = append(parts[h], ss)
		}
		for h, part := range parts {
			h.model.RestoreTracked(server, part, saved.Saved, now)
		}
	}
	d.journal.tracked.resume(saved)
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

// incident: rec is the loss of the host's own session, which opened an
// incident.
func incident(rec journal.Record) bool {
	l, _ := rec.Facts.(health.Loss)
	return l.Incident
}
