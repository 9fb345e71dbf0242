package restart

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/fsutil"
)

// The history file carries a host's restart limits across the watchdog's
// own restarts (a crash loop must not restart the host without bound). A
// file of its own rather than part of the sessions' state: each restart is
// saved before it begins, whatever the journal's health, and a bad one is
// read the other way round: a bad sessions file means a fresh baseline, a
// bad history must not lift the limit. It holds no session ids; 0600 all
// the same, like every state file.
const (
	// BadSuffix names the copy kept of a history that could not be read.
	BadSuffix = ".bad"
	// maxHistorySize bounds what is read: a burst of timestamps.
	maxHistorySize = 1 << 20
	// historyVersion is the format written; another is not read as one.
	historyVersion = 1
)

// ErrBadHistory: the file is there but is not a history this watchdog
// wrote.
var ErrBadHistory = errors.New("not a restart history this watchdog wrote")

// historyFile is the file's shape. Its times are wall-clock times.
type historyFile struct {
	Version   int         `json:"version"`
	Saved     time.Time   `json:"saved"`
	Restarts  []time.Time `json:"restarts"`
	Last      time.Time   `json:"last"`
	BackoffMS int64       `json:"backoff_ms"`
	// Boot is the boot clock at Saved: on the same boot, a start measures
	// the file's age with it, so a wall clock set forward or back between
	// the runs changes nothing. Absent where there is no boot clock.
	Boot *BootMark `json:"boot,omitempty"`
}

// BootMark is a reading of the boot clock (ReadBootClock).
type BootMark struct {
	ID        string        `json:"id"`
	SinceBoot time.Duration `json:"since_boot_ns"`
}

// ReadHistory reads the history saved at path as of now, the boot clock
// reading now cur (curErr: none); a missing file is os.ErrNotExist, one
// this watchdog did not write ErrBadHistory.
func ReadHistory(path string, now time.Time, cur BootMark, curErr error) (History, error) {
	data, err := fsutil.ReadPrivate(path, maxHistorySize)
	if err != nil {
		return History{}, err
	}
	var f historyFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return History{}, fmt.Errorf("%w: %w", ErrBadHistory, err)
	}
	switch {
	case f.Version != historyVersion:
		return History{}, fmt.Errorf("%w: version %d, this watchdog reads %d", ErrBadHistory, f.Version, historyVersion)
	case f.Saved.IsZero():
		return History{}, fmt.Errorf("%w: it says nothing of when it was saved", ErrBadHistory)
	}
	return f.history(now, cur, curErr), nil
}

// history is f's restart history as of now: every time moved by how long
// ago f was saved, by the boot clock when f was saved on this boot (cur),
// else by the wall clock, where a save dated after now (a clock set back)
// counts as just made.
func (f historyFile) history(now time.Time, cur BootMark, curErr error) History {
	wall := now.Round(0)
	age := max(wall.Sub(f.Saved), 0)
	if f.Boot != nil && curErr == nil && f.Boot.ID == cur.ID && cur.SinceBoot >= f.Boot.SinceBoot {
		age = cur.SinceBoot - f.Boot.SinceBoot
	}
	shift := wall.Add(-age).Sub(f.Saved)
	h := History{Backoff: time.Duration(f.BackoffMS) * time.Millisecond}
	for _, t := range f.Restarts {
		h.Restarts = append(h.Restarts, t.Add(shift))
	}
	if !f.Last.IsZero() {
		h.Last = f.Last.Add(shift)
	}
	return h
}

// WriteHistory saves h at path atomically, 0600, with the boot clock when
// known (bootErr nil).
func WriteHistory(path string, h History, now time.Time, boot BootMark, bootErr error) error {
	f := historyFile{Version: historyVersion, Saved: now.Round(0).UTC(), Restarts: []time.Time{},
		Last: h.Last.UTC(), BackoffMS: h.Backoff.Milliseconds()}
	if bootErr == nil {
		f.Boot = &boot
	}
	for _, t := range h.Restarts {
		f.Restarts = append(f.Restarts, t.UTC())
	}
	out, err := json.Marshal(f)
	if err != nil {
		return fmt.Errorf("encode the restart history: %w", err)
	}
	if err := fsutil.WriteAtomic(path, out, 0o600); err != nil {
		return fmt.Errorf("save the restart history: %w", err)
	}
	return nil
}

// KeepBadCopy hard-links the history at path as path+BadSuffix, replacing
// an older kept copy: the name itself is never missing, which would lift
// the limit at the next start.
func KeepBadCopy(path string) (kept string, err error) {
	kept = path + BadSuffix
	if err := os.Remove(kept); err != nil && !errors.Is(err, os.ErrNotExist) {
		return kept, err
	}
	return kept, os.Link(path, kept)
}
