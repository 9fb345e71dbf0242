package follow

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/mcpwatchdog/watchdog/internal/backstop"
	"github.com/mcpwatchdog/watchdog/monitor/dirwatch"
)

const (
	// readBudget is how much one file may read per pass before the others
	// get their turn.
	readBudget = 4 << 20
	// readChunk is the read buffer; lines longer than it are assembled
	// in the splitter.
	readChunk = 64 << 10
)

// errWatcherClosed: fsnotify closed its channels while Run still ran.
var errWatcherClosed = errors.New("follow: file watcher stopped")

// runner is the state of one Run; only Run's goroutine touches it.
type runner struct {
	// progress counts lines sent and files opened: a re-scan that moves it
	// found what the events missed.
	progress int64
	// unwatched counts directories the last pass could not watch: their
	// changes are seen only by the re-scan, which must then keep its pace.
	unwatched int
	f         *Follower
	opts      Options
	log       *slog.Logger
	w         *dirwatch.Watcher
	files     map[string]*file       // followed files by their current path
	links     map[string]link        // followed links by their targets (links.go)
	dirs      map[string]os.FileInfo // watched directories, as they were when watched
	retired   []*file                // rotated away or deleted: read to their end, then closed
	known     *known
	warned    map[warnKey]bool
	buf       []byte
	listings  map[string]listing // directories read in the current expandAll

	budget     int    // files held open at most (fds.go); the rest are polled
	fullBudget int    // budget as derived at the start, before any EMFILE lowered it
	softLimit  uint64 // RLIMIT_NOFILE the budget came from
	held       int    // files holding a descriptor, retired ones included
	pollWarned bool   // the polled-files warning was given for this episode

	pend      pending
	timer     *time.Timer
	armed     bool
	lastFlush time.Time
}

// pending is what events asked for since the last pass.
type pending struct {
	all    bool            // check everything (backstop, event overflow)
	rescan bool            // names changed: glob again
	check  map[string]bool // paths whose identity may have changed
	read   map[string]bool // followed paths that were written
	old    bool            // something changed while retired files are open
}

func newPending() pending {
	return pending{check: make(map[string]bool), read: make(map[string]bool)}
}

func (p *pending) empty() bool {
	return !p.all && !p.rescan && !p.old && len(p.check) == 0 && len(p.read) == 0
}

type warnKey struct{ path, msg string }

func newRunner(ctx context.Context, f *Follower) (*runner, error) {
	w, err := dirwatch.Open(ctx, f.opts.Hub)
	if err != nil {
		return nil, fmt.Errorf("follow: %w", err)
	}
	t := time.NewTimer(time.Hour)
	t.Stop()
	budget, soft := heldBudget()
	if n := f.opts.MaxOpenFiles; n != 0 {
		budget = max(min(budget, n), 0)
	}
	return &runner{
		budget: budget, fullBudget: budget, softLimit: soft,
		f: f, opts: f.opts, log: f.log, w: w,
		files:  make(map[string]*file),
		links:  make(map[string]link),
		dirs:   make(map[string]os.FileInfo),
		known:  f.known,
		warned: make(map[warnKey]bool),
		buf:    make([]byte, readChunk),
		pend:   newPending(),
		timer:  t,
	}, nil
}

// loop handles events until ctx ends.
func (r *runner) loop(ctx context.Context) error {
	r.rescan(ctx, true)
	close(r.f.scanned)
	pace := backstop.New(r.opts.Backstop, r.opts.BackstopMax)
	back := time.NewTimer(pace.Next())
	defer back.Stop()
	for ctx.Err() == nil {
		select {
		case <-ctx.Done():
		case ev, ok := <-r.w.Events:
			if !ok {
				return errWatcherClosed
			}
			r.note(ev)
			r.schedule()
		case err, ok := <-r.w.Errors:
			if !ok {
				return errWatcherClosed
			}
			r.watchError(err)
			r.schedule()
		case <-r.timer.C:
			r.armed = false
			r.flush(ctx)
		case <-back.C:
			before := r.progress
			r.pend.all = true
			r.flush(ctx)
			r.closeIdle()
			pace.Checked(r.progress != before || r.unwatched > 0 || r.anyPolled())
			back.Reset(pace.Next())
		}
	}
	return nil
}

// note records what an event asks for. Names are cleaned: inotify reports
// the watched directory joined with the entry's name.
func (r *runner) note(ev fsnotify.Event) {
	name := filepath.Clean(ev.Name)
	// A retired file's writes arrive under a name no glob matches, or
	// none at all: read retired files on any event while they are open.
	if len(r.retired) > 0 {
		r.pend.old = true
	}
	if ev.Op&^fsnotify.Write != 0 && r.onGlobWay(name) {
		// Created, removed, renamed or its permissions changed: a file
		// or a directory on a glob's way may have come or gone.
		r.pend.rescan = true
		r.pend.check[name] = true
	}
	if _, ok := r.files[name]; ok {
		r.pend.read[name] = true
		return
	}
	if r.noteLink(ev, name) {
		return
	}
	if ev.Has(fsnotify.Write) && r.matches(name) {
		r.pend.rescan = true // written before its creation was seen
	}
}

func (r *runner) watchError(err error) {
	if errors.Is(err, fsnotify.ErrEventOverflow) {
		r.log.Info("follow: event queue overflowed; re-scanning")
	} else {
		r.log.Warn("follow: watcher error; re-scanning", "err", err)
	}
	r.pend.all = true
}

// schedule arms the pass: at once after a quiet spell, else when Debounce
// has passed since the previous one. The timer is not pushed back by later
// events, so a steady stream still gets a pass every Debounce.
func (r *runner) schedule() {
	if r.armed || r.pend.empty() {
		return
	}
	r.timer.Reset(max(0, r.opts.Debounce-time.Since(r.lastFlush)))
	r.armed = true
}

// flush does what the pending events asked for. Paths are checked before
// the glob runs, so a rotated file is read to its end before its successor.
func (r *runner) flush(ctx context.Context) {
	p := r.pend
	r.pend = newPending()
	r.lastFlush = time.Now()
	// A full pass (the backstop) reads only the files whose path shows a
	// change: one stat each, not four system calls, for 200 quiet files.
	var asIs map[*file]bool
	if p.all {
		asIs = make(map[*file]bool)
		for _, f := range r.sorted() {
			if r.checkPath(ctx, f) {
				asIs[f] = true
			}
		}
	}
	for path := range p.check {
		if f := r.files[path]; f != nil {
			r.checkPath(ctx, f)
		}
	}
	if p.all || p.rescan {
		r.rescan(ctx, false)
	}
	for _, f := range r.sorted() {
		if (p.all && !asIs[f]) || p.read[f.path] {
			r.readFile(ctx, f, readBudget)
		}
	}
	for _, f := range r.retired {
		r.readFile(ctx, f, -1)
	}
	r.schedule() // files with more to read than their budget
}

// anyPolled: some file is polled (not held open), seen by stat on each pass.
func (r *runner) anyPolled() bool {
	for _, f := range r.files {
		if f.polled {
			return true
		}
	}
	return false
}

// sorted lists the followed files in path order, for deterministic passes.
func (r *runner) sorted() []*file {
	fs := make([]*file, 0, len(r.files))
	for _, f := range r.files {
		fs = append(fs, f)
	}
	slices.SortFunc(fs, func(a, b *file) int { return strings.Compare(a.path, b.path) })
	return fs
}

// close releases the descriptors and the watcher. The acks of open files
// stay, for the final checkpoint.
func (r *runner) close() {
	for _, f := range r.files {
		f.close()
	}
	for _, f := range r.retired {
		f.close()
	}
	_ = r.w.Close()
}

// warnOnce reports a problem once until it goes away (clearWarns).
func (r *runner) warnOnce(tag, path string, err error) {
	k := warnKey{path, err.Error()}
	if r.warned[k] {
		return
	}
	r.warned[k] = true
	r.f.warn(tag, path, err)
}

func (r *runner) clearWarns(path string) {
	for k := range r.warned {
		if k.path == path {
			delete(r.warned, k)
		}
	}
}

// emitter sends f's lines to Lines, blocking while the consumer is behind.
func (r *runner) emitter(ctx context.Context, f *file) func([]byte, int64) bool {
	return func(text []byte, end int64) bool {
		if f.fp == "" && !r.ensureFingerprint(f) {
			return false
		}
		l := Line{
			Tag:     f.tag,
			Text:    bytes.Clone(text),
			Pos:     Position{Path: f.path, Fingerprint: f.fp, Offset: end},
			History: end <= f.histEnd,
		}
		select {
		case r.f.lines <- l:
			r.progress++
			return true
		case <-ctx.Done():
			return false
		}
	}
}

// ensureFingerprint names a file whose first line completed after the last
// refresh. Failing that, the file changed under the read.
func (r *runner) ensureFingerprint(f *file) bool {
	changed, err := f.refresh()
	if err != nil || changed || f.fp == "" {
		f.stale = true
		return false
	}
	r.register(f)
	return true
}

func (r *runner) register(f *file) {
	if !f.live && f.fp != "" {
		r.f.acks.open(f.key(), f.resumed)
		f.live = true
	}
}

func (r *runner) unregister(f *file) {
	if f.live {
		r.f.acks.close(f.key())
		f.live = false
	}
}
