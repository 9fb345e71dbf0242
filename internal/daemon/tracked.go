package daemon

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/fsutil"
	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/journal"
	"github.com/mcpwatchdog/watchdog/internal/mask"
)

// maxTrackedSize bounds what loadTracked reads: ids and times of the
// sessions a few servers hold.
const maxTrackedSize = 64 << 20

// trackedName is the file that carries the sessions the daemon tracks
// across a restart. It holds full session ids, like the server's own
// store, so it is written 0600 in the 0700 state directory.
const trackedName = "sessions.json"

// trackedActivityEvery bounds how often a change of activity alone (no
// session came or went) is saved; ids are saved as soon as they change.
const trackedActivityEvery = 5 * time.Second

type trackedFile struct {
	Saved   time.Time                        `json:"saved"`
	Servers map[string][]health.StoreSession `json:"servers"`
	// Incidents are the open losses with the lost session's full id: the
	// journal keeps only masked ids, and a masked id must never stand in
	// for the real one after a restart.
	Incidents map[string]savedIncident `json:"incidents,omitempty"`
	// JournalOutage: the journal could not be written when this was saved,
	// and the warning that ends an outage was not yet written.
	JournalOutage *savedOutage `json:"journal_outage,omitempty"`
}

// savedOutage is a journal outage under way.
type savedOutage struct {
	Since time.Time `json:"since"`
	Error string    `json:"error"`
}

// savedIncident is one open loss, as the private state keeps it.
type savedIncident struct {
	Session string    `json:"session"`
	Since   time.Time `json:"since"`
}

// privateState is what a restart needs with full ids: the tracked sessions
// and the open incidents.
type privateState struct {
	servers   map[string][]health.StoreSession
	incidents map[string]savedIncident
	outage    *savedOutage
}

// trackedSaver writes the model's tracked sessions when they change.
type trackedSaver struct {
	path   string
	saved  bool   // this run has saved: last is what it wrote
	digest uint64 // the models' TrackedDigest when last was written
	lastAt time.Time
	// last is what the last save wrote: the state the journal agrees with.
	last privateState
	// heldIDs: what saveHeld last wrote, to skip rewriting the same;
	// held is that state: an outage's saves only add to it, so a session
	// born and gone within the outage stays saved until the journal has it.
	heldIDs string
	held    *privateState
}

// save writes the private state if its ids changed, or its activity
// changed and trackedActivityEvery has passed (or force: a clean stop).
// It runs on every tick and signal, so telling "nothing changed" allocates
// nothing: the state is compared with the last one saved, field by field.
func (s *trackedSaver) save(st privateState, digest uint64, now time.Time, force bool) error {
	switch {
	case !s.saved, s.held != nil, !sameIDs(st, s.last): // s.held: the file says "outage"
	case sameSessions(st.servers, s.last.servers):
		return nil
	case !force && now.Sub(s.lastAt) < trackedActivityEvery:
		return nil
	}
	out, err := json.Marshal(trackedFile{Saved: now, Servers: st.servers, Incidents: st.incidents})
	if err != nil {
		return fmt.Errorf("encode tracked sessions: %w", err)
	}
	if err := fsutil.WriteAtomic(s.path, out, 0o600); err != nil {
		return fmt.Errorf("save tracked sessions: %w", err)
	}
	s.saved, s.digest, s.lastAt, s.last, s.heldIDs, s.held = true, digest, now, st, "", nil
	return nil
}

// wrote reports whether the last save wrote the state whose digest is
// digest, outside an outage: there is nothing to save.
func (s *trackedSaver) wrote(digest uint64) bool {
	return s.saved && s.held == nil && s.digest == digest
}

// sameIDs: a and b track the same sessions on the same servers, and the
// same open incidents (Tracked lists each server's sessions by id).
func sameIDs(a, b privateState) bool {
	if len(a.servers) != len(b.servers) || len(a.incidents) != len(b.incidents) {
		return false
	}
	for server, la := range a.servers {
		lb, ok := b.servers[server]
		if !ok || len(la) != len(lb) {
			return false
		}
		for i := range la {
			if la[i].ID != lb[i].ID {
				return false
			}
		}
	}
	for key, in := range a.incidents {
		o, ok := b.incidents[key]
		if !ok || o.Session != in.Session || !o.Since.Equal(in.Since) {
			return false
		}
	}
	return true
}

// sameSessions: a and b, with the same ids (sameIDs), say the same of each
// session: its client, creation and last activity.
func sameSessions(a, b map[string][]health.StoreSession) bool {
	for server, la := range a {
		lb := b[server]
		for i := range la {
			x, y := la[i], lb[i]
			if x.Client != y.Client || !x.Created.Equal(y.Created) || !x.LastActivity.Equal(y.LastActivity) {
				return false
			}
		}
	}
	return true
}

// resume takes what the last run saved as the state the journal agrees
// with, for saveHeld before this run's first save.
func (s *trackedSaver) resume(f trackedFile) {
	s.last = privateState{servers: f.Servers, incidents: f.Incidents}
	s.lastAt = f.Saved
}

// saveHeld saves while the journal holds events back: the sessions of the
// last save (an end held back must be judged again after a kill -9) plus
// the current ones (a session born in the outage must be known), with the
// last save's time and incidents, so the next start re-judges every store
// change the journal does not have.
func (s *trackedSaver) saveHeld(cur privateState) error {
	base := s.last
	if s.held != nil {
		base = *s.held
	}
	merged := privateState{servers: map[string][]health.StoreSession{}, incidents: base.incidents, outage: cur.outage}
	for server, list := range base.servers {
		merged.servers[server] = slices.Clone(list)
	}
	for server, list := range cur.servers {
		for _, st := range list {
			if !slices.ContainsFunc(merged.servers[server], func(o health.StoreSession) bool { return o.ID == st.ID }) {
				merged.servers[server] = append(merged.servers[server], st)
			}
		}
	}
	ids := trackedIDs(merged)
	if s.held != nil && ids == s.heldIDs {
		return nil // the first save of an outage is made whatever changed: it records the outage
	}
	out, err := json.Marshal(trackedFile{Saved: s.lastAt, Servers: merged.servers, Incidents: merged.incidents,
		JournalOutage: merged.outage})
	if err != nil {
		return fmt.Errorf("encode tracked sessions: %w", err)
	}
	if err := fsutil.WriteAtomic(s.path, out, 0o600); err != nil {
		return fmt.Errorf("save tracked sessions: %w", err)
	}
	s.heldIDs, s.held = ids, &merged
	return nil
}

func trackedIDs(st privateState) string {
	var ids []string
	for server, list := range st.servers {
		for _, ss := range list {
			ids = append(ids, server+"\x00"+ss.ID)
		}
	}
	for server, in := range st.incidents {
		ids = append(ids, "incident\x00"+server+"\x00"+in.Session+"\x00"+in.Since.String())
	}
	slices.Sort(ids)
	b, _ := json.Marshal(ids)
	return string(b)
}

// loadTracked reads what a previous run saved, minus the sessions whose
// end the journal already records after the save (a kill -9 between
// journaling an end and saving the file must not report it twice). The
// journal names sessions by masked id, and short ids share a mask: each
// end record takes out one session only, preferring the one of its client.
// A missing file is no error: the first snapshot is then a baseline.
func loadTracked(stateDir string, recs []journal.Record) (trackedFile, error) {
	data, err := fsutil.ReadPrivate(filepath.Join(stateDir, trackedName), maxTrackedSize)
	if errors.Is(err, os.ErrNotExist) {
		return trackedFile{}, nil
	}
	if err != nil {
		return trackedFile{}, fmt.Errorf("read tracked sessions: %w", err)
	}
	var f trackedFile
	if err := json.Unmarshal(data, &f); err != nil {
		return trackedFile{}, fmt.Errorf("%s is not valid JSON (%w); sessions that ended while the watchdog was down go unreported this once", trackedName, err)
	}
	for _, rec := range endedSince(recs, f.Saved) {
		f.Servers[rec.Server] = dropOne(f.Servers[rec.Server], rec)
	}
	return f, nil
}

// dropOne removes the one session rec ended: of those whose id masks to
// rec's, the one of rec's client, else the first.
func dropOne(list []health.StoreSession, rec journal.Record) []health.StoreSession {
	at := -1
	for i, st := range list {
		if mask.ID(st.ID) != rec.Session {
			continue
		}
		if at < 0 || (st.Client == health.ClientOf(rec.Facts) && list[at].Client != health.ClientOf(rec.Facts)) {
			at = i
		}
	}
	if at < 0 {
		return list
	}
	return slices.Delete(list, at, at+1)
}

// endedSince: the records of every session the journal saw end at or after
// since. An incident's session_lost does not end the tracking: the session
// stays tracked until the store drops it.
func endedSince(recs []journal.Record, since time.Time) []journal.Record {
	var out []journal.Record
	for _, rec := range recs {
		if rec.Session == "" || rec.Time.Before(since) {
			continue
		}
		switch {
		case rec.Kind == health.EvSessionExpired, rec.Kind == health.EvSessionEnded,
			rec.Kind == health.EvSessionLost && !incident(rec):
			out = append(out, rec)
		}
	}
	return out
}

// saveTracked keeps the tracked sessions for the next start; a failure is
// logged, not fatal: only sessions ending during a restart go unreported.
// While the journal holds events, the save keeps what the journal does not
// have yet to be judged again (saveHeld).
func (d *daemon) saveTracked(force bool) {
	t := &d.journal.tracked
	var err error
	if d.journal.w.failing() {
		err = t.saveHeld(d.privateState())
	} else {
		var digest uint64
		for _, h := range d.watched {
			digest += h.model.TrackedDigest()
		}
		if t.wrote(digest) {
			return // on every tick and signal: most often nothing changed
		}
		err = t.save(d.privateState(), digest, d.now(), force)
	}
	if err != nil {
		d.log.Warn("cannot save the tracked sessions", "err", err)
	}
}

// privateState is what the next start needs with full ids.
func (d *daemon) privateState() privateState {
	st := privateState{incidents: map[string]savedIncident{}, outage: d.journal.w.current()}
	for _, h := range d.watched {
		tracked := h.model.Tracked() // a map of its own each call
		if st.servers == nil {
			st.servers = tracked // most often the only host: its map, not a copy
		} else {
			for server, list := range tracked {
				st.servers[server] = append(st.servers[server], list...)
			}
		}
		for _, s := range d.cfg.Servers {
			if id, since, open := h.model.Incident(s.Name); open && id != "" {
				st.incidents[incidentKey(h, s.Name)] = savedIncident{Session: id, Since: since}
			}
		}
	}
	return st
}
