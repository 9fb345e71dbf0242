package store

import (
	"cmp"
	"log/slog"
	"slices"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/mask"
)

// Session is one entry of the store. A zero time means unknown.
type Session struct {
	ID           string
	Client       string
	LastActivity time.Time
	Created      time.Time
}

// String masks the id: session ids are credentials.
func (s Session) String() string {
	return "session " + mask.ID(s.ID) + " client=" + s.Client
}

// LogValue masks the id when a Session is logged through slog.
func (s Session) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("id", mask.ID(s.ID)),
		slog.String("client", s.Client),
		slog.Time("last_activity", s.LastActivity),
	)
}

// Snapshot is one good read of the store. Sessions are sorted by ID.
type Snapshot struct {
	Path     string
	Sessions []Session
	Skipped  int // entries without an id, or repeating one, left out
	// Truncated: sessions over MaxSessions left out (the least recently
	// active). Sessions missing from a truncated snapshot may still be in
	// the store: their absence says nothing.
	Truncated int
	ReadAt    time.Time
}

// Diff is what changed between two snapshots' sessions. Each list is sorted
// by ID and holds the sessions as they are in next (Removed: as in prev).
type Diff struct {
	Added   []Session
	Removed []Session
	Touched []Session // in both, and LastActivity advanced
}

// Empty reports whether nothing changed.
func (d Diff) Empty() bool {
	return len(d.Added) == 0 && len(d.Removed) == 0 && len(d.Touched) == 0
}

// Compare returns the sessions added, removed and touched from prev to next.
// It is pure: the caller decides what a removal means (and must not call it
// with a snapshot it did not get as good).
func Compare(prev, next []Session) Diff {
	before := byID(prev)
	after := byID(next)
	var d Diff
	for id, n := range after {
		p, ok := before[id]
		switch {
		case !ok:
			d.Added = append(d.Added, n)
		case n.LastActivity.After(p.LastActivity):
			d.Touched = append(d.Touched, n)
		}
	}
	for id, p := range before {
		if _, ok := after[id]; !ok {
			d.Removed = append(d.Removed, p)
		}
	}
	for _, l := range [][]Session{d.Added, d.Removed, d.Touched} {
		sortSessions(l)
	}
	return d
}

// byID indexes sessions; of repeated ids the latest activity wins, as in Parse.
func byID(list []Session) map[string]Session {
	m := make(map[string]Session, len(list))
	for _, s := range list {
		if old, ok := m[s.ID]; ok && old.LastActivity.After(s.LastActivity) {
			continue
		}
		m[s.ID] = s
	}
	return m
}

func sortSessions(list []Session) {
	slices.SortStableFunc(list, func(a, b Session) int { return cmp.Compare(a.ID, b.ID) })
}
