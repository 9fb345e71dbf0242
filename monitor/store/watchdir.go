package store

import (
	"github.com/mcpwatchdog/watchdog/internal/fsutil"

	"path/filepath"
	"slices"
	"strings"
)

// setupAttempts bounds re-checks when directories appear while a watch is added.
const setupAttempts = 4

// setupWatch watches the store's directory, or while it does not exist its
// nearest existing ancestor, so that its creation is seen. A failed Add is
// logged and left to the backstop.
func (l *loop) setupWatch() {
	for range setupAttempts {
		want := ""
		if l.path != "" {
			want = fsutil.NearestDir(filepath.Dir(l.path))
		}
		if want == l.watched && (want == "" || slices.Contains(l.fw.WatchList(), want)) {
			return
		}
		if l.watched != "" {
			_ = l.fw.Remove(l.watched) // may be gone already with its directory
			l.watched = ""
		}
		if want == "" {
			return
		}
		if err := l.fw.Add(want); err != nil {
			if !l.addFailed { // the backstop retries every period: say it once
				l.log.Warn("session store: cannot watch directory; polling", "dir", want, "err", err)
			}
			l.addFailed = true
			return
		}
		l.watched, l.addFailed = want, false
		if want != filepath.Dir(l.path) {
			l.log.Info("session store directory missing; watching an ancestor", "dir", want, "path", l.path)
		}
		// A directory created between the stat and the Add sent no event to
		// the new watch: check again.
	}
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
