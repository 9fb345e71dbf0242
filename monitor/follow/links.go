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

// track makes f the file followed at its path, and at its target if it is
// a link.
func (r *runner) track(f *file) {
	r.files[f.path] = f
	f.target = linkTarget(f.path)
	if f.target != "" {
		r.links[f.target] = f.path
	}
}

// untrack ends what track began, if f is still the file at its path.
func (r *runner) untrack(f *file) {
	if r.files[f.path] != f {
		return
	}
	delete(r.files, f.path)
	if f.target != "" && r.links[f.target] == f.path {
		delete(r.links, f.target)
	}
}

// noteLink records what an event on a followed link's target asks for;
// false when name is no such target.
func (r *runner) noteLink(ev fsnotify.Event, name string) bool {
	path, ok := r.links[name]
	if !ok {
		return false
	}
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
	for target, path := range r.links {
		d := filepath.Dir(target)
		if _, ok := dirs[d]; !ok {
			dirs[d] = r.files[path].tag
			added = true
		}
	}
	return added
}
