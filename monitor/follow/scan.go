package follow

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"

	"github.com/mcpwatchdog/watchdog/internal/fsutil"
)

// readFile reads f from its offset, up to budget bytes (negative: to its
// end). A file whose content was replaced under it starts over at 0.
func (r *runner) readFile(ctx context.Context, f *file, budget int64) {
	if ctx.Err() != nil {
		return
	}
	if budget < 0 {
		budget = 1<<63 - 1
	}
	if f.polled {
		if f.fd == nil && f.unchanged() {
			return
		}
		if err := f.acquire(); err != nil {
			if !errors.Is(err, errReplaced) && !notExist(err) {
				r.warnOnce(f.tag, f.path, err)
			}
			return // replaced or gone: checkPath retires it
		}
		defer f.release()
	}
	for range 3 { // a restart reads again; bounded against a file rewritten without pause
		changed, err := f.refresh()
		if err != nil {
			r.warnOnce(f.tag, f.path, err)
			return
		}
		if changed {
			r.restartFile(f)
			continue
		}
		r.register(f)
		more, stopped, err := f.read(r.buf, budget, r.emitter(ctx, f), r.longWarner(f))
		if errors.Is(err, errRewritten) {
			r.restartFile(f)
			continue
		}
		if err != nil {
			r.warnOnce(f.tag, f.path, err)
			return
		}
		if stopped && f.stale {
			r.restartFile(f)
			continue
		}
		if more && r.files[f.path] == f {
			r.pend.read[f.path] = true
		}
		return
	}
}

func (r *runner) longWarner(f *file) func(int64) {
	return func(start int64) {
		r.f.warn(f.tag, f.path, fmt.Errorf("line at offset %d: %w", start, ErrLineTooLong))
	}
}

// restartFile handles truncation and in-place replacement: what the file
// holds now is new content, read from offset 0 as live lines.
func (r *runner) restartFile(f *file) {
	r.log.Info("follow: file truncated or replaced; reading it from the start", "path", f.path)
	r.unregister(f)
	f.restart()
}

// checkPath notices that f's path now names another file or none: f was
// rotated away or deleted. It is read to its end and retired; whatever now
// has its name is found by the glob. asIs: the path shows f as it was when
// last read to its end, so a read would find nothing.
func (r *runner) checkPath(ctx context.Context, f *file) (asIs bool) {
	fi, err := os.Stat(f.path)
	switch {
	case err == nil && os.SameFile(fi, f.fi):
		return f.readAsIs(fi)
	case err != nil && !notExist(err):
		r.warnOnce(f.tag, f.path, err) // cannot tell: keep following the descriptor
		return false
	}
	r.log.Debug("follow: file rotated or removed", "path", f.path)
	r.untrack(f)
	// A polled file has no descriptor to read the rest through: what it
	// grew by since the last pass is lost (package doc, Limits), unless
	// the glob finds it under a new name before closeIdle drops it.
	r.readFile(ctx, f, -1)
	r.retired = append(r.retired, f)
	return false
}

// closeIdle closes retired files that did not grow for a whole backstop
// period: their writer has moved on. A polled one cannot be read, so it
// goes after one period whatever it holds.
func (r *runner) closeIdle() {
	kept := r.retired[:0]
	for _, f := range r.retired {
		if f.size == f.tickSize && (f.off >= f.size || f.polled) {
			r.unregister(f)
			f.close()
			r.dropped(f)
			continue
		}
		f.tickSize = f.size
		kept = append(kept, f)
	}
	clear(r.retired[len(kept):])
	r.retired = kept
}

// discover starts following path, matched by a glob of tag.
func (r *runner) discover(ctx context.Context, path, tag string, initial bool) {
	if _, ok := r.files[path]; ok {
		return
	}
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		if !notExist(err) {
			r.warnOnce(tag, path, err)
		}
		return
	case fi.IsDir():
		return // a glob may match directories too: not a log
	case !fi.Mode().IsRegular():
		// A FIFO, device or socket where a log was expected: said, since
		// the user thinks it is followed, and never opened.
		r.warnOnce(tag, path, fmt.Errorf("%w (it is a %s); it is not followed", fsutil.ErrNotRegular, fsutil.TypeName(fi.Mode())))
		return
	}
	if r.adopt(path, fi) {
		return
	}
	f, err := openFile(path, tag, r.opts.MaxLine)
	if err != nil {
		if !r.outOfDescriptors(err) {
			r.warnOnce(tag, path, err)
		}
		return
	}
	r.clearWarns(path)
	r.hold(f)
	r.place(f, initial)
	r.track(f)
	r.progress++ // a file the events had not told of, when a re-scan finds it
	r.readFile(ctx, f, readBudget)
	f.release()
}

// adopt recognises a followed file under a new name (renamed within the
// globs) by its identity, so it is not read twice.
func (r *runner) adopt(path string, fi os.FileInfo) bool {
	for old, g := range r.files {
		if !os.SameFile(g.fi, fi) {
			continue
		}
		if st, err := os.Stat(old); err == nil && os.SameFile(st, g.fi) {
			return true // a second name (hard link): keep the first
		}
		r.move(g, path)
		return true
	}
	for i, g := range r.retired {
		if os.SameFile(g.fi, fi) {
			r.retired = append(r.retired[:i], r.retired[i+1:]...)
			r.move(g, path)
			return true
		}
	}
	return false
}

func (r *runner) move(f *file, path string) {
	r.log.Debug("follow: file renamed", "from", f.path, "to", path)
	r.untrack(f)
	from := f.key()
	f.path = path
	r.track(f)
	// A polled file was not read to its end when it left its old name:
	// read it under the new one on the next pass.
	r.pend.read[path] = true
	if f.live {
		r.f.acks.rename(from, f.key())
	}
}

// place picks where a newly opened file starts: at a saved position with
// its fingerprint; at 0 when it is new content; at its tail (as History)
// when it is seen for the first time at start-up.
func (r *runner) place(f *file, initial bool) {
	if f.fp != "" {
		if p, ok := r.known.match(f.path, f.fp); ok {
			r.known.remove(p)
			r.f.acks.uncarry(keyOf(p))
			if f.size >= p.Offset {
				f.seek(p.Offset, skipNone)
				f.resumed = p.Offset
				return
			}
			r.log.Info("follow: file shorter than its saved position; reading it from the start", "path", f.path)
			return
		}
	}
	if !initial || r.known.paths[f.path] {
		return // appeared while running, or replaced since the last run
	}
	from := f.size - r.opts.HistoryBytes
	if r.opts.HistoryBytes < 0 {
		from = f.size
	}
	// A line still being written started before the window, but it ends
	// after start-up: it is live, and comes whole.
	from = min(from, r.tailStart(f))
	f.histEnd = f.size
	if from > 0 {
		f.seek(from-1, skipToNewline) // the byte before from tells whether a line starts at from
	}
}

// tailStart is where f's unterminated last line begins (f.size when the
// file ends with a newline). It looks back at most MaxLine bytes: a longer
// tail is skipped anyway.
func (r *runner) tailStart(f *file) int64 {
	end := f.size
	for end > 0 && f.size-end <= int64(r.opts.MaxLine) {
		n := min(int64(len(r.buf)), end)
		b := r.buf[:n]
		if _, err := f.fd.ReadAt(b, end-n); err != nil {
			return f.size
		}
		if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
			return end - n + int64(i) + 1
		}
		end -= n
	}
	if end == 0 {
		return 0
	}
	return f.size
}

// pruneKnown drops loaded positions that can no longer be claimed: their
// path is gone, matches no glob, or holds a followed file with another
// fingerprint. Paths that cannot be checked (unreadable directory) keep
// theirs.
func (r *runner) pruneKnown() {
	for _, p := range r.known.all() {
		stale := !r.matches(p.Path)
		if g := r.files[p.Path]; g != nil {
			stale = stale || g.fp != "" && g.fp != p.Fingerprint
		} else if _, err := os.Stat(p.Path); notExist(err) {
			stale = true
		}
		if stale {
			r.known.remove(p)
			r.f.acks.uncarry(keyOf(p))
		}
	}
}

func notExist(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}
