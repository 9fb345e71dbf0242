package follow

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/fsnotify/fsnotify"

	"github.com/mcpwatchdog/watchdog/internal/fsutil"
)

// A log a glob matches may be a symbolic link ("latest.log" pointing at
// this session's file). Its writes change the target, and inotify tells
// the target's directory under the target's name, not the link's: the
// link's own directory hears nothing, so without more its lines would wait
// for the backstop. Each followed link's target is therefore known by name
// (runner.links) and its directory watched too (linkDirs). So is the
// target of a link that points at nothing yet (awaitLink): the file's
// making is heard there, or, while its directory is missing too, the
// directory's making in the nearest one there is.

// linkTarget is where path points when its last element is a symbolic
// link, else "": a directory on the way that is a link needs nothing,
// since a watch on it is a watch on where it points.
func linkTarget(path string) string {
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode()&os.ModeSymlink == 0 {
		return ""
	}
	t, err := filepath.EvalSymlinks(path)
	if err != nil || t == path {
		return ""
	}
	return t
}

// link is a followed link, known by its target.
type link struct{ path, tag string }

// maxLinkHops bounds a chain of links followed by hand, as the kernel's
// own limit (40 on Linux) bounds its.
const maxLinkHops = 40

// danglingTarget is the file a link to nothing points at, "" when path is
// no link: EvalSymlinks fails on a missing target, so the chain is read
// link by link.
func danglingTarget(path string) string {
	p := path
	for range maxLinkHops {
		dest, err := os.Readlink(p)
		if err != nil {
			if p == path {
				return ""
			}
			return p
		}
		if !filepath.IsAbs(dest) {
			dest = filepath.Join(filepath.Dir(p), dest)
		}
		// Named as inotify will name it: through its real directory.
		if d, err := filepath.EvalSymlinks(filepath.Dir(dest)); err == nil {
			dest = filepath.Join(d, filepath.Base(dest))
		}
		p = dest
	}
	return ""
}

// track makes f the file followed at its path, and at its target if it is
// a link.
func (r *runner) track(f *file) {
	r.files[f.path] = f
	f.target = linkTarget(f.path)
	if f.target != "" {
		r.setLink(f.target, link{f.path, f.tag})
	}
}

// awaitLink records a link the glob matched that points at nothing (its
// target replaced, or the link pointed at a file not made yet): the
// target's directory tells when it is there.
func (r *runner) awaitLink(tag, path string) {
	if t := danglingTarget(path); t != "" {
		r.setLink(t, link{path, tag})
	}
}

// setLink knows l by target, and by nothing else: a link points at one
// file.
func (r *runner) setLink(target string, l link) {
	for t, old := range r.links {
		if old.path == l.path && t != target {
			delete(r.links, t) // the link points elsewhere now
		}
	}
	r.links[target] = l
}

// untrack ends following f at its path, if it is still the file there. A
// link whose target is replaced points at nothing for a while: the pass
// knows it again by its target then (awaitLink).
func (r *runner) untrack(f *file) {
	if r.files[f.path] == f {
		delete(r.files, f.path)
	}
}

// pruneLinks forgets the targets of links not followed through them; the
// pass that follows learns again those that point at nothing (awaitLink).
func (r *runner) pruneLinks() {
	for t, l := range r.links {
		if f := r.files[l.path]; f == nil || f.target != t {
			delete(r.links, t)
		}
	}
}

// noteLink records what an event on a followed link's target asks for;
// false when name is no such target.
func (r *runner) noteLink(ev fsnotify.Event, name string) bool {
	l, ok := r.links[name]
	if !ok {
		if ev.Has(fsnotify.Create) && r.onLinkWay(name) {
			// A directory on the way to a missing target: glob
			// again, which watches it.
			r.pend.rescan = true
			return true
		}
		return false
	}
	path := l.path
	if ev.Op&^fsnotify.Write != 0 {
		// The target was replaced or removed: the link may now point
		// at another file, found by globbing again.
		r.pend.check[path] = true
		r.pend.rescan = true
	}
	r.pend.read[path] = true
	return true
}

// onLinkWay: dir is a directory above a link's target.
func (r *runner) onLinkWay(dir string) bool {
	for t := range r.links {
		if strings.HasPrefix(t, dir+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// linkDirs adds the directories of links' targets to dirs (the nearest
// one there while a target's is missing); it reports whether one was not
// there yet.
func (r *runner) linkDirs(dirs map[string]string) (added bool) {
	for target, l := range r.links {
		d := fsutil.NearestDir(filepath.Dir(target))
		if d == "" {
			continue
		}
		if _, ok := dirs[d]; !ok {
			dirs[d] = l.tag
			added = true
		}
	}
	return added
}
