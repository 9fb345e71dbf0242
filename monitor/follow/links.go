package follow

import (
	"os"
	"path/filepath"

	"github.com/fsnotify/fsnotify"
)

// A log a glob matches may be a symbolic link ("latest.log" pointing at
// this session's file). Its writes change the target, and inotify tells
// the target's directory under the target's name, not the link's: the
// link's own directory hears nothing, so without more its lines would wait
// for the backstop. Each followed link's target is therefore known by name
// (runner.links) and its directory watched too (linkDirs).

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

// track makes f the file followed at its path, and at its target if it is
// a link.
func (r *runner) track(f *file) {
	r.files[f.path] = f
	f.target = linkTarget(f.path)
	if f.target == "" {
		return
	}
	for t, l := range r.links {
		if l.path == f.path {
			delete(r.links, t) // the link points elsewhere now
		}
	}
	r.links[f.target] = link{f.path, f.tag}
}

// untrack ends following f at its path, if it is still the file there. A
// link stays known by its target (pruneLinks): while its target is
// replaced it points at nothing, and only the target's directory will tell
// when the new one is there.
func (r *runner) untrack(f *file) {
	if r.files[f.path] == f {
		delete(r.files, f.path)
	}
}

// pruneLinks forgets the targets of links that are neither followed
// through them nor waiting for their target to come back.
func (r *runner) pruneLinks() {
	for t, l := range r.links {
		if f := r.files[l.path]; f != nil && f.target == t {
			continue
		}
		if dangling(l.path) {
			continue
		}
		delete(r.links, t)
	}
}

// dangling: path is a symbolic link to nothing.
func dangling(path string) bool {
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode()&os.ModeSymlink == 0 {
		return false
	}
	_, err = os.Stat(path)
	return notExist(err)
}

// noteLink records what an event on a followed link's target asks for;
// false when name is no such target.
func (r *runner) noteLink(ev fsnotify.Event, name string) bool {
	l, ok := r.links[name]
	if !ok {
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

// linkDirs adds the directories of followed links' targets to dirs; it
// reports whether one was not there yet.
func (r *runner) linkDirs(dirs map[string]string) (added bool) {
	for target, l := range r.links {
		d := filepath.Dir(target)
		if _, ok := dirs[d]; !ok {
			dirs[d] = l.tag
			added = true
		}
	}
	return added
}
