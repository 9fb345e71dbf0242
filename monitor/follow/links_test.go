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
	for _, tc := range []struct {
		name      string
		elsewhere bool // the target is in a directory no glob names
		change    func(t *testing.T, link, target string) (newTarget string)
	}{
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
	} {
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
