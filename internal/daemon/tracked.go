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
}

// trackedSaver writes the model's tracked sessions when they change.
type trackedSaver struct {
	path    string
	lastIDs string
	lastDoc []byte
	lastAt  time.Time
}

// save writes the tracked sessions if their ids changed, or their activity
// changed and trackedActivityEvery has passed (or force: a clean stop).
func (s *trackedSaver) save(tracked map[string][]health.StoreSession, now time.Time, force bool) error {
	ids := trackedIDs(tracked)
	doc, err := json.Marshal(tracked)
	if err != nil {
		return fmt.Errorf("encode tracked sessions: %w", err)
	}
	switch {
	case ids != s.lastIDs:
	case string(doc) == string(s.lastDoc):
		return nil
	case !force && now.Sub(s.lastAt) < trackedActivityEvery:
		return nil
	}
	out, err := json.Marshal(trackedFile{Saved: now, Servers: tracked})
	if err != nil {
		return fmt.Errorf("encode tracked sessions: %w", err)
	}
	if err := fsutil.WriteAtomic(s.path, out, 0o600); err != nil {
		return fmt.Errorf("save tracked sessions: %w", err)
	}
	s.lastIDs, s.lastDoc, s.lastAt = ids, doc, now
	return nil
}

func trackedIDs(tracked map[string][]health.StoreSession) string {
	var ids []string
	for server, list := range tracked {
		for _, st := range list {
			ids = append(ids, server+"\x00"+st.ID)
		}
	}
	slices.Sort(ids)
	b, _ := json.Marshal(ids)
	return string(b)
}

// loadTracked reads what a previous run saved, minus the sessions whose
// end the journal already records after the save (a kill -9 between
// journaling an end and saving the file must not report it twice).
// A missing file is no error: the first snapshot is then a baseline.
func loadTracked(stateDir string, recs []journal.Record) (map[string][]health.StoreSession, error) {
	data, err := os.ReadFile(filepath.Join(stateDir, trackedName))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read tracked sessions: %w", err)
	}
	var f trackedFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("%s is not valid JSON (%w); sessions that ended while the watchdog was down go unreported this once", trackedName, err)
	}
	ended := endedSince(recs, f.Saved)
	for server, list := range f.Servers {
		f.Servers[server] = slices.DeleteFunc(list, func(st health.StoreSession) bool {
			return ended[server+"\x00"+mask.ID(st.ID)]
		})
	}
	return f.Servers, nil
}

// endedSince: server + masked id of every session the journal saw end at
// or after since. An incident's session_lost does not end the tracking: the
// session stays tracked until the store drops it.
func endedSince(recs []journal.Record, since time.Time) map[string]bool {
	out := map[string]bool{}
	for _, rec := range recs {
		if rec.Session == "" || rec.Time.Before(since) {
			continue
		}
		switch {
		case rec.Kind == health.EvSessionExpired, rec.Kind == health.EvSessionEnded,
			rec.Kind == health.EvSessionLost && !rec.Incident:
			out[rec.Server+"\x00"+rec.Session] = true
		}
	}
	return out
}
