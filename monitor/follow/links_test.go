package follow

import (
	"os"
	"path/filepath"
	"testing"
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
