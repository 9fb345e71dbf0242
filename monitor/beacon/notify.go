package beacon

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/mcpwatchdog/watchdog/internal/fsutil"
)

// setupAttempts bounds re-checks when directories appear or vanish while a
// watch is being moved (each vanished one moves it a level up).
const setupAttempts = 16

// setupWatch watches Dir, or while it does not exist its nearest existing
// ancestor, so that its creation is seen; a Dir removed moves the watch back
// up. A failed Add is logged once and left to the Interval reads.
func (l *loop) setupWatch() {
	if l.fw == nil {
		return
	}
	for range setupAttempts {
		want := fsutil.NearestDir(l.dir)
		if want == l.watched && (want == "" || slices.Contains(l.fw.WatchList(), want)) {
			return
		}
		if l.watched != "" {
			_ = l.fw.Remove(l.watched) // may be gone already, with its directory
			l.watched = ""
		}
		if want == "" {
			return
		}
		if err := l.fw.Add(want); err != nil {
			if isMissing(err) {
				continue // removed since NearestDir saw it: one level up
			}
			if !l.addFailed {
				l.log.Warn("beacons: cannot watch directory; reading it every interval", "dir", want, "err", err)
			}
			l.addFailed = true
			return
		}
		l.watched, l.addFailed = want, false
		if want == l.dir {
			return
		}
		// Directories made between the stat and the Add sent this watch
		// nothing: look again.
	}
}

// onEvent reacts to the beacon directory's entries, and to the directories
// on the way to it (created, removed or renamed). Events from an ancestor
// about anything else (a home directory is busy) are dropped.
func (l *loop) onEvent(ev fsnotify.Event) {
	name := filepath.Clean(ev.Name)
	switch {
	case filepath.Dir(name) == l.dir:
		l.kick()
	case isAncestorOrSelf(name, l.dir):
		l.setupWatch()
		l.kick()
	}
}

func (l *loop) onError(err error) {
	l.log.Warn("beacons: watch error", "dir", l.dir, "err", err)
	if errors.Is(err, fsnotify.ErrEventOverflow) {
		l.setupWatch()
		l.kick() // events were lost: look again
	}
}

// kick schedules a read once a burst of events is quiet, or burstCap
// debounce periods after it began at the latest.
func (l *loop) kick() {
	d := debounce
	now := time.Now()
	if !l.debounceArmed {
		l.debounceArmed, l.burstStart = true, now
	}
	if left := l.burstStart.Add(burstCap * debounce).Sub(now); left < d {
		d = max(left, 0)
	}
	l.debounce.Reset(d)
}

// isAncestorOrSelf reports whether a is dir or a directory above it.
func isAncestorOrSelf(a, dir string) bool {
	if a == dir {
		return true
	}
	if !strings.HasSuffix(a, string(filepath.Separator)) {
		a += string(filepath.Separator)
	}
	return strings.HasPrefix(dir, a)
}
