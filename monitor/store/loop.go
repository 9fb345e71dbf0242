package store

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/mcpwatchdog/watchdog/internal/backstop"
	"github.com/mcpwatchdog/watchdog/monitor/dirwatch"
)

// burstCap bounds how long a burst of events may postpone a read, in
// debounce intervals: a file written continuously is still read.
const burstCap = 10

// errEventsClosed: fsnotify closed its channels while Run was watching.
var errEventsClosed = errors.New("store watcher: fsnotify channels closed")

// state is what the last Update said.
type state int

const (
	stateNone state = iota // nothing sent yet for this path
	stateSnapshot
	stateGone
	stateErr
)

// loop is Run's state; only Run's goroutine touches it.
type loop struct {
	w   *Watcher
	fw  *dirwatch.Watcher
	out chan<- Update
	log *slog.Logger

	path      string
	watched   string // directory under watch: the store's parent or an ancestor
	addFailed bool   // the last attempt to watch failed (and was logged)

	state     state
	hash      [32]byte    // of the bytes behind the last Snapshot sent
	read      os.FileInfo // the file those bytes were read from, as they were read (nil: unknown)
	truncated bool        // the last snapshot was cut at MaxSessions (warned once)

	debounce      *time.Timer
	debounceArmed bool
	burstStart    time.Time
	retry         *time.Timer
	retryArmed    bool
	// emitted counts updates sent: a backstop check that moves it found
	// what the events missed.
	emitted int64
}

func newLoop(w *Watcher, fw *dirwatch.Watcher, out chan<- Update) *loop {
	l := &loop{w: w, fw: fw, out: out, log: w.log,
		debounce: time.NewTimer(time.Hour), retry: time.NewTimer(time.Hour)}
	l.stopTimers()
	return l
}

func (l *loop) stopTimers() {
	l.debounce.Stop()
	l.retry.Stop()
	l.debounceArmed, l.retryArmed = false, false
}

func (l *loop) run(ctx context.Context) error {
	pace := backstop.New(l.w.opts.Backstop, l.w.opts.BackstopMax)
	back := time.NewTimer(pace.Next())
	defer back.Stop()
	l.switchPath(ctx, l.w.Path())
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-l.w.changed:
			if p := l.w.Path(); p != l.path {
				l.switchPath(ctx, p)
			}
		case ev, ok := <-l.fw.Events:
			if !ok {
				return errEventsClosed
			}
			l.onEvent(ev)
		case err, ok := <-l.fw.Errors:
			if !ok {
				return errEventsClosed
			}
			l.onError(err)
		case <-l.debounce.C:
			l.debounceArmed = false
			l.evaluate(ctx, false)
		case <-l.retry.C:
			l.retryArmed = false
			l.evaluate(ctx, true)
		case <-back.C:
			before := l.emitted
			l.setupWatch()
			if !l.asRead() {
				l.evaluate(ctx, false)
			}
			// Without a watch on the store's own directory only these checks see it.
			pace.Checked(l.emitted != before || l.addFailed || l.path == "" || l.watched != filepath.Dir(l.path))
			back.Reset(pace.Next())
		}
	}
}

// switchPath forgets everything about the old file: the next read of the new
// one is sent whatever it holds.
func (l *loop) switchPath(ctx context.Context, p string) {
	l.stopTimers()
	l.path, l.state, l.hash, l.truncated, l.read = p, stateNone, [32]byte{}, false, nil
	l.setupWatch()
	l.evaluate(ctx, false)
}

// onEvent reacts to the store itself, and to the directories on the way to
// it (created, removed or renamed).
func (l *loop) onEvent(ev fsnotify.Event) {
	if l.path == "" {
		return
	}
	name := filepath.Clean(ev.Name)
	switch {
	case name == l.path:
		l.kick()
	case isAncestorOrSelf(name, filepath.Dir(l.path)):
		l.setupWatch()
		l.kick()
	}
}

func (l *loop) onError(err error) {
	l.log.Warn("session store watch error", "path", l.path, "err", err)
	if errors.Is(err, fsnotify.ErrEventOverflow) {
		l.setupWatch()
		l.kick() // events were lost: look again
	}
}

// kick schedules a read once the burst of events is quiet, or at the latest
// burstCap debounce intervals after it began.
func (l *loop) kick() {
	d := l.w.opts.Debounce
	now := time.Now()
	if !l.debounceArmed {
		l.debounceArmed, l.burstStart = true, now
	}
	if left := l.burstStart.Add(burstCap * d).Sub(now); left < d {
		d = max(left, 0)
	}
	l.debounce.Reset(d)
}

func (l *loop) armRetry() {
	if !l.retryArmed {
		l.retryArmed = true
		l.retry.Reset(l.w.opts.Retry)
	}
}

func (l *loop) stopRetry() {
	l.retry.Stop()
	l.retryArmed = false
}

func (l *loop) emit(ctx context.Context, u Update) {
	select {
	case l.out <- u:
		l.emitted++
	case <-ctx.Done():
	}
}
