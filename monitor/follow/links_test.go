package follow

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestLinkedLogsFollowedByEvents: a log the glob matches that is a
// symbolic link ("latest.log" to this session's file) is read as its
// target is written, without waiting for the backstop (longBackstop here):
// the target's directory tells of the writes, under the target's name.
// Also when the link is pointed at a new file, or its target is rotated.
func TestLinkedLogsFollowedByEvents(t *testing.T) {
	t.Parallel()
	for _, tc := range linkChanges() {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			targetDir := dir
			if tc.elsewhere {
				targetDir = t.TempDir()
			}
			target := filepath.Join(targetDir, "session-1.txt")
			link := filepath.Join(dir, "latest.log")
			writeFile(t, target, "")
			mustDo(t, os.Symlink(target, link))
			h := startFollower(t, Options{Sources: []Source{{Tag: "t", Globs: []string{link}}}, Backstop: longBackstop})
			appendFile(t, target, "first\n")
			h.waitText("first")
			if tc.change == nil {
				return
			}
			now := tc.change(t, link, target)
			appendFile(t, now, "after the change\n")
			h.waitText("after the change")
			appendFile(t, now, "and the next\n")
			h.waitText("and the next")
		})
	}
}

// TestTwoLinksToOneLog: two links to one file are one log, read once,
// under the first name; dropping one link leaves the other followed.
func TestTwoLinksToOneLog(t *testing.T) {
	t.Parallel()
	dir, targetDir := t.TempDir(), t.TempDir()
	target := filepath.Join(targetDir, "session.txt")
	writeFile(t, target, "")
	a, b := filepath.Join(dir, "a.log"), filepath.Join(dir, "b.log")
	mustDo(t, os.Symlink(target, a))
	mustDo(t, os.Symlink(target, b))
	h := startFollower(t, Options{Sources: logGlob(dir), Backstop: longBackstop})
	appendFile(t, target, "once\n")
	h.waitText("once")
	mustDo(t, os.Remove(b))
	appendFile(t, target, "still followed\n")
	h.waitText("still followed")
	if got := texts(h.got()); len(got) != 2 {
		t.Errorf("lines %q, want each once", got)
	}
}

// repointThenCreate points link at next, which is not there yet, lets the
// passes that asks for run while it dangles, then makes next (and its
// directory).
func repointThenCreate(t *testing.T, link, next string) string {
	t.Helper()
	tmp := link + ".tmp"
	mustDo(t, os.Symlink(next, tmp))
	mustDo(t, os.Rename(tmp, link))
	time.Sleep(10 * DefaultDebounce)
	mustDo(t, os.MkdirAll(filepath.Dir(next), 0o755))
	writeFile(t, next, "")
	return next
}

// TestDanglingTarget: where a link to nothing points, named as inotify
// will name the file once it is made.
func TestDanglingTarget(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	root, err := filepath.EvalSymlinks(dir)
	mustDo(t, err)
	other := filepath.Join(root, "other")
	mustDo(t, os.Mkdir(other, 0o755))
	mustDo(t, os.Symlink(other, filepath.Join(root, "via"))) // a linked directory
	writeFile(t, filepath.Join(root, "plain.log"), "")
	mustDo(t, os.Symlink("other/d.txt", filepath.Join(root, "chain2.log")))
	mustDo(t, os.Symlink("a loop.log", filepath.Join(root, "loop2.log")))
	for _, tc := range []struct{ name, dest, want string }{
		{"absolute", filepath.Join(other, "a.txt"), filepath.Join(other, "a.txt")},
		{"relative", "other/b.txt", filepath.Join(other, "b.txt")},
		{"through a linked directory", filepath.Join(root, "via", "c.txt"), filepath.Join(other, "c.txt")},
		{"a chain of links", "chain2.log", filepath.Join(other, "d.txt")},
		{"a loop", "loop2.log", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			link := filepath.Join(root, tc.name+".log")
			mustDo(t, os.Symlink(tc.dest, link))
			if got := danglingTarget(link); got != tc.want {
				t.Errorf("danglingTarget(→ %s) = %q, want %q", tc.dest, got, tc.want)
			}
		})
	}
	if got := danglingTarget(filepath.Join(root, "plain.log")); got != "" {
		t.Errorf("danglingTarget(a plain file) = %q, want \"\"", got)
	}
}

// linkChange is what TestLinkedLogsFollowedByEvents does to a followed link.
type linkChange struct {
	name      string
	elsewhere bool // the target is in a directory no glob names
	change    func(t *testing.T, link, target string) (newTarget string)
}

// linkChanges are the cases of TestLinkedLogsFollowedByEvents.
func linkChanges() []linkChange {
	return []linkChange{
		{name: "target beside the link"},
		{name: "target in another directory", elsewhere: true},
		{name: "link pointed at a new file", elsewhere: true, change: func(t *testing.T, link, target string) string {
			next := target + ".2"
			writeFile(t, next, "")
			tmp := link + ".tmp"
			mustDo(t, os.Symlink(next, tmp))
			mustDo(t, os.Rename(tmp, link))
			return next
		}},
		{name: "link pointed at a file not made yet, in a third directory", elsewhere: true, change: func(t *testing.T, link, _ string) string {
			return repointThenCreate(t, link, filepath.Join(t.TempDir(), "session-2.txt"))
		}},
		{name: "link pointed at a file in a directory not made yet", elsewhere: true, change: func(t *testing.T, link, _ string) string {
			return repointThenCreate(t, link, filepath.Join(t.TempDir(), "later", "session-2.txt"))
		}},
		{name: "target removed, made again after a pass", elsewhere: true, change: func(t *testing.T, link, target string) string {
			mustDo(t, os.Remove(target))
			// Time for the passes the removal asks for: the link points
			// at nothing while they run.
			time.Sleep(10 * DefaultDebounce)
			writeFile(t, target, "")
			return target
		}},
		{name: "target rotated", elsewhere: true, change: func(t *testing.T, link, target string) string {
			mustDo(t, os.Rename(target, target+".1"))
			writeFile(t, target, "")
			return target
		}},
	}
}
