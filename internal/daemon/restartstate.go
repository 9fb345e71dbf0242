package daemon

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/mcpwatchdog/watchdog/healer/restart"
	"github.com/mcpwatchdog/watchdog/internal/fsutil"
	"github.com/mcpwatchdog/watchdog/internal/health"
)

// restartsName is the file that carries the host-restart limits across
// the watchdog's own restarts (a crash loop must not restart the host
// without bound). A file of its own rather than part of sessions.json:
// each restart is saved before it begins, whatever the journal's health
// (sessions.json holds back during a journal outage), and a bad one is
// read the other way round: a bad sessions.json means a fresh baseline,
// a bad restarts.json must not lift the limit. It holds no session ids;
// 0600 all the same, like every state file.
const restartsName = "restarts.json"

// restartsBadSuffix names the copy kept of a history that could not be read.
const restartsBadSuffix = ".bad"

// maxRestartsSize bounds what is read: a burst of timestamps.
const maxRestartsSize = 1 << 20

// restartsVersion is the format written; another is not read as one.
const restartsVersion = 1

// restartsFile is restarts.json. Its times are wall-clock times.
type restartsFile struct {
	Version   int         `json:"version"`
	Saved     time.Time   `json:"saved"`
	Restarts  []time.Time `json:"restarts"`
	Last      time.Time   `json:"last"`
	BackoffMS int64       `json:"backoff_ms"`
	// Boot is the boot clock at Saved: on the same boot, a start measures
	// the file's age with it, so a wall clock set forward or back between
	// the runs changes nothing. Absent where there is no boot clock.
	Boot *bootMark `json:"boot,omitempty"`
}

// bootMark is a reading of the boot clock (readBootClock).
type bootMark struct {
	ID        string        `json:"id"`
	SinceBoot time.Duration `json:"since_boot_ns"`
}

// errBadRestarts: restarts.json is there but is not a history this
// watchdog wrote.
var errBadRestarts = errors.New("not a restart history this watchdog wrote")

// readRestarts reads restarts.json; a missing file is os.ErrNotExist.
func readRestarts(path string) (restartsFile, error) {
	data, err := fsutil.ReadPrivate(path, maxRestartsSize)
	if err != nil {
		return restartsFile{}, err
	}
	var f restartsFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return restartsFile{}, fmt.Errorf("%w: %w", errBadRestarts, err)
	}
	switch {
	case f.Version != restartsVersion:
		return restartsFile{}, fmt.Errorf("%w: version %d, this watchdog reads %d", errBadRestarts, f.Version, restartsVersion)
	case f.Saved.IsZero():
		return restartsFile{}, fmt.Errorf("%w: it says nothing of when it was saved", errBadRestarts)
	}
	return f, nil
}

// history is f's restart history as of now: every time moved by how long
// ago f was saved, by the boot clock when f was saved on this boot (cur),
// else by the wall clock, where a save dated after now (a clock set back)
// counts as just made.
func (f restartsFile) history(now time.Time, cur bootMark, curErr error) restart.History {
	wall := now.Round(0)
	age := max(wall.Sub(f.Saved), 0)
	if f.Boot != nil && curErr == nil && f.Boot.ID == cur.ID && cur.SinceBoot >= f.Boot.SinceBoot {
		age = cur.SinceBoot - f.Boot.SinceBoot
	}
	shift := wall.Add(-age).Sub(f.Saved)
	h := restart.History{Backoff: time.Duration(f.BackoffMS) * time.Millisecond}
	for _, t := range f.Restarts {
		h.Restarts = append(h.Restarts, t.Add(shift))
	}
	if !f.Last.IsZero() {
		h.Last = f.Last.Add(shift)
	}
	return h
}

// writeRestarts saves h atomically, 0600, with the boot clock when known.
func writeRestarts(path string, h restart.History, now time.Time, boot bootMark, bootErr error) error {
	f := restartsFile{Version: restartsVersion, Saved: now.Round(0).UTC(), Restarts: []time.Time{},
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

// restoreLimits gives the limiter the history of the last runs, at the
// start, before any heal can run. A history that cannot be read does not
// lift the limit: the limiter takes it as reached (see holdLimits) and the
// warning it returns says so.
func (h *healing) restoreLimits(now time.Time) []health.Event {
	f, err := readRestarts(h.limitsPath)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil // the first run here
	case err != nil:
		return []health.Event{h.holdLimits(err, now)}
	}
	boot, bootErr := h.bootClock()
	h.limiter.Restore(f.history(now, boot, bootErr), now)
	h.saved = h.limiter.History(now)
	return nil
}

// holdLimits makes the limiter act as if the burst had just been used up,
// keeps a copy of the unreadable file and saves the held state in its
// place, so a crash loop counts its window from the first bad start
// instead of starting it over at each. The copy is a hard link made
// before the file is replaced: the name is never missing, which would
// lift the limit at the next start. When no copy can be made the file is
// left as it is and held at every start.
func (h *healing) holdLimits(readErr error, now time.Time) health.Event {
	h.limiter.AssumeLimitReached(now)
	until := now.Add(h.limiter.Policy().Window)
	path, kept := h.limitsPath, h.limitsPath+restartsBadSuffix
	what := "it was kept as " + filepath.Base(kept)
	if err := keepCopy(path, kept); err != nil {
		what = fmt.Sprintf("it was left in place, since no copy could be kept (%v)", err)
	} else if err := h.saveLimits(now); err != nil {
		what += fmt.Sprintf(", but the held limit could not be saved over it (%v)", err)
	}
	return health.Event{Time: now, Kind: health.EvWarning,
		Extra: map[string]any{"file": path, "error": readErr.Error(), "restarts_held_until": until.UTC().Format(time.RFC3339)},
		Detail: fmt.Sprintf("the host-restart history %s could not be read (%v); %s. Host restarts are held as if the "+
			"restart limit were reached, until %s, and go on by themselves then. To allow them sooner, stop the "+
			"watchdog, delete %s and start it again", path, readErr, what, until.Format("15:04:05"), path)}
}

// keepCopy hard-links path as kept, replacing an older kept copy.
func keepCopy(path, kept string) error {
	if err := os.Remove(kept); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return os.Link(path, kept)
}

// saveLimits writes the limiter's history. Each restart is saved before
// it begins, so no stop of the watchdog, not even a kill -9, forgets it.
func (h *healing) saveLimits(now time.Time) error {
	hist := h.limiter.History(now)
	boot, bootErr := h.bootClock()
	if err := writeRestarts(h.limitsPath, hist, now, boot, bootErr); err != nil {
		return err
	}
	h.saved = hist
	return nil
}

// saveLimitsChanged saves the history when its backoff changed since the
// last save: an hour of health started it over, which the next run should
// know. Restarts leaving the window need no save: a start drops them.
func (h *healing) saveLimitsChanged(now time.Time) error {
	if h.limiter.History(now).Backoff == h.saved.Backoff {
		return nil
	}
	return h.saveLimits(now)
}
