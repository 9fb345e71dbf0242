package follow

import (
	"github.com/mcpwatchdog/watchdog/internal/fsutil"

	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
)

// rescanRounds bounds re-globbing while directories keep appearing: a
// directory created before its watch was added sent no event to it.
const rescanRounds = 4

type match struct{ path, tag string }

// rescan globs every source, watches the directories that matter and
// follows new matches. initial marks the scan at start-up, whose files get
// their history.
func (r *runner) rescan(ctx context.Context, initial bool) {
	r.pruneLinks()
	for range rescanRounds {
		dirs, found := r.expandAll()
		r.linkDirs(dirs)
		added := r.syncWatches(dirs)
		for _, m := range found {
			r.discover(ctx, m.path, m.tag, initial)
		}
		if r.linkDirs(dirs) {
			// Links found just now: their targets' directories are
			// watched from here, so read them once more for what was
			// written before the watch.
			added = r.syncWatches(dirs) || added
			for _, l := range r.links {
				r.pend.read[l.path] = true
			}
		}
		if !added {
			break
		}
	}
	r.pruneKnown()
	r.promotePolled()
	r.notePolled()
}

// expandAll returns the directories to watch (with the tag to report their
// problems under) and the files matched now, in order, each once: a file
// matched by two sources belongs to the first.
func (r *runner) expandAll() (map[string]string, []match) {
	// Sources' globs often share a directory (one per server, all in the
	// app's log folder): it is read once a pass, not once a glob.
	r.listings = make(map[string]listing)
	defer func() { r.listings = nil }()
	dirs := make(map[string]string)
	seen := make(map[string]bool)
	var found []match
	for _, s := range r.opts.Sources {
		for _, g := range s.Globs {
			for _, p := range r.expand(s.Tag, g, dirs) {
				if !seen[p] {
					seen[p] = true
					found = append(found, match{p, s.Tag})
				}
			}
		}
	}
	return dirs, found
}

// expand returns the files (not directories) pattern matches and adds to dirs every
// directory the pattern passes through, so that new directories and files
// on its way send events; while its fixed part does not exist, the nearest
// existing ancestor stands in.
func (r *runner) expand(tag, pattern string, dirs map[string]string) []string {
	static, rest := splitStatic(filepath.Dir(pattern))
	if fi, err := os.Stat(static); err != nil || !fi.IsDir() {
		switch {
		case err == nil: // a file where the pattern wants a directory: a misconfiguration
			r.warnOnce(tag, static, fmt.Errorf("%w: cannot hold %s", ErrNotDir, filepath.Base(pattern)))
		case !notExist(err):
			r.warnOnce(tag, static, err)
		}
		if a := fsutil.NearestDir(static); a != "" {
			addDir(dirs, a, tag)
		}
		return nil
	}
	addDir(dirs, static, tag)
	// The parent too: it sees the directory deleted and made again, which
	// the directory's own watch reports only once no file in it is open.
	addDir(dirs, filepath.Dir(static), tag)
	level := []string{static}
	for _, elem := range rest {
		var next []string
		for _, d := range level {
			next = append(next, r.children(tag, d, elem, true)...)
		}
		for _, d := range next {
			addDir(dirs, d, tag)
		}
		level = next
	}
	var files []string
	for _, d := range level {
		files = append(files, r.children(tag, d, filepath.Base(pattern), false)...)
	}
	slices.Sort(files)
	return files
}

func addDir(dirs map[string]string, dir, tag string) {
	if _, ok := dirs[dir]; !ok {
		dirs[dir] = tag
	}
}

// children lists dir's entries that match the pattern element elem:
// directories when wantDir, else everything else (symbolic links followed).
func (r *runner) children(tag, dir, elem string, wantDir bool) []string {
	if !hasMeta(elem) {
		// Only needs search permission on dir.
		if p := filepath.Join(dir, elem); r.isKind(tag, p, wantDir) {
			return []string{p}
		}
		return nil
	}
	entries, err := r.readDir(dir)
	if err != nil {
		r.warnOnce(tag, dir, fmt.Errorf("read directory: %w", err))
		return nil
	}
	r.clearWarns(dir)
	var out []string
	for _, e := range entries {
		if ok, _ := filepath.Match(elem, e.Name()); !ok {
			continue
		}
		p := filepath.Join(dir, e.Name())
		// The listing tells a file from a directory without a stat of
		// every match (the bulk of a pass over a big log folder); a link
		// or an entry of unknown type is looked at where it points.
		if t := e.Type(); t&fs.ModeSymlink == 0 && t&fs.ModeIrregular == 0 {
			if wantDir == e.IsDir() {
				out = append(out, p)
			}
			continue
		}
		if r.isKind(tag, p, wantDir) {
			out = append(out, p)
		}
	}
	return out
}

// isKind stats p: a directory when wantDir, else anything but one, so that
// discover can warn about a FIFO, device or socket it will not open.
func (r *runner) isKind(tag, p string, wantDir bool) bool {
	fi, err := os.Stat(p)
	if err != nil {
		switch {
		case !notExist(err):
			r.warnOnce(tag, p, err)
		case !wantDir:
			r.awaitLink(tag, p) // a link to a log not there yet
		}
		return false
	}
	return wantDir == fi.IsDir()
}

// listing is one directory's entries as read in the current pass.
type listing struct {
	entries []os.DirEntry
	err     error
}

// readDir reads dir once per expandAll.
func (r *runner) readDir(dir string) ([]os.DirEntry, error) {
	if l, ok := r.listings[dir]; ok {
		return l.entries, l.err
	}
	entries, err := os.ReadDir(dir)
	if r.listings != nil {
		r.listings[dir] = listing{entries, err}
	}
	return entries, err
}

// syncWatches makes the watched set equal dirs. It reports whether a watch
// was added, after which the caller globs again. fsnotify's WatchList is the
// truth: a deleted directory's watch is gone without our doing.
func (r *runner) syncWatches(dirs map[string]string) (added bool) {
	r.unwatched = 0
	have := make(map[string]bool)
	for _, d := range r.w.WatchList() {
		have[d] = true
	}
	for _, d := range slices.Sorted(mapKeys(dirs)) {
		// Stat before Add: should the directory be replaced in between,
		// the next pass sees the difference and watches again.
		fi, err := os.Stat(d)
		if err != nil || have[d] && r.dirs[d] != nil && os.SameFile(fi, r.dirs[d]) {
			continue
		}
		// Not watched, or the watch is on a directory that was deleted
		// and made again. Its removal is reported only once nothing in it
		// is open, and a rotated file in it still is.
		if err := r.w.Add(d); err != nil {
			r.warnOnce(dirs[d], d, fmt.Errorf("watch directory (changes seen every %s): %w", r.opts.Backstop, err))
			r.unwatched++
			continue
		}
		r.dirs[d] = fi
		r.clearWarns(d)
		added = true
	}
	for d := range have {
		if _, ok := dirs[d]; !ok {
			_ = r.w.Remove(d) // may be gone with its directory
			delete(r.dirs, d)
		}
	}
	return added
}

func mapKeys(m map[string]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// matches reports whether path is matched by any glob.
func (r *runner) matches(path string) bool {
	for _, s := range r.opts.Sources {
		for _, g := range s.Globs {
			if ok, _ := filepath.Match(g, path); ok {
				return true
			}
		}
	}
	return false
}

// onGlobWay reports whether path is matched by a glob or is a directory a
// glob passes through: only such names can change what the globs match.
func (r *runner) onGlobWay(path string) bool {
	depth := strings.Count(path, string(filepath.Separator))
	for _, s := range r.opts.Sources {
		for _, g := range s.Globs {
			if depth > strings.Count(g, string(filepath.Separator)) {
				continue
			}
			if ok, _ := filepath.Match(cutComponents(g, depth), path); ok {
				return true
			}
		}
	}
	return false
}

// cutComponents cuts a path pattern before its (n+1)th separator:
// cutComponents("/a/*/c", 2) is "/a/*".
func cutComponents(pattern string, n int) string {
	seen := 0
	for i := range len(pattern) {
		if pattern[i] == filepath.Separator {
			if seen++; seen > n {
				return pattern[:i]
			}
		}
	}
	return pattern
}

// splitStatic splits a directory pattern into its leading part without
// metacharacters and the pattern elements after it.
func splitStatic(dir string) (static string, rest []string) {
	static = filepath.Clean(dir)
	for hasMeta(static) {
		rest = append(rest, filepath.Base(static))
		static = filepath.Dir(static)
	}
	slices.Reverse(rest)
	return static, rest
}

// hasMeta reports whether s holds characters filepath.Match treats
// specially.
func hasMeta(s string) bool {
	magic := `*?[\`
	if runtime.GOOS == "windows" {
		magic = `*?[`
	}
	return strings.ContainsAny(s, magic)
}
