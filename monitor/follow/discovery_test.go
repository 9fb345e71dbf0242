package follow

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

func TestFilesAppearLater(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		glob  string   // relative to the test directory
		files []string // created after Run started, in this order
	}{
		{name: "in a watched directory", glob: "*.log", files: []string{"app.log", "other.log"}},
		{name: "directory appears later", glob: "sub/app.log", files: []string{"sub/app.log"}},
		{name: "nested directories appear later", glob: "a/*/logs/*.log", files: []string{"a/x/logs/one.log", "a/y/logs/two.log"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			h := startFollower(t, Options{
				Sources:      []Source{{Tag: "t", Globs: []string{filepath.Join(dir, tc.glob)}}},
				Backstop:     longBackstop, // events only
				HistoryBytes: 4,            // would cut the content short were it taken for history
			})
			var want []string
			for i, name := range tc.files {
				path := filepath.Join(dir, name)
				mustDo(t, os.MkdirAll(filepath.Dir(path), 0o755))
				lines := []string{fmt.Sprintf("file%d-first", i), fmt.Sprintf("file%d-second", i)}
				writeFile(t, path, joinLines(lines)) // in one go: read from offset 0
				h.waitText(lines[1])
				appendFile(t, path, fmt.Sprintf("file%d-third\n", i))
				lines = append(lines, fmt.Sprintf("file%d-third", i))
				h.waitText(lines[2])
				want = append(want, lines...)
			}
			got := h.got()
			if !slices.Equal(texts(got), want) {
				t.Fatalf("got %q, want %q", texts(got), want)
			}
			for _, l := range got {
				if l.History {
					t.Fatalf("line %q of a new file delivered as history", l.Text)
				}
			}
		})
	}
}

func TestHistoryOnFirstStart(t *testing.T) {
	t.Parallel()
	var lines []string
	for i := range 10 {
		lines = append(lines, fmt.Sprintf("hist-%02d", i)) // 8 bytes with newline
	}
	content := joinLines(lines) + "tail-par" // the last line is still being written
	size := int64(len(content))
	cases := []struct {
		name    string
		history int64
		from    int // first history line
	}{
		{name: "default takes all", history: 0, from: 0},
		{name: "limit at a line start", history: size - 7*8, from: 7},
		{name: "limit inside a line", history: size - 7*8 - 3, from: 8},
		{name: "limit inside the last full line", history: 10, from: 10},
		{name: "none", history: -1, from: 10},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			path := filepath.Join(dir, "app.log")
			writeFile(t, path, content)
			h := startFollower(t, Options{Sources: logGlob(dir), HistoryBytes: tc.history, Backstop: longBackstop})
			appendFile(t, path, "tial\nlive\n")
			h.waitText("live")
			got := h.got()
			want := append(slices.Clone(lines[tc.from:]), "tail-partial", "live")
			if !slices.Equal(texts(got), want) {
				t.Fatalf("got %q, want %q", texts(got), want)
			}
			for i, l := range got {
				if isHist := i < len(got)-2; l.History != isHist {
					t.Fatalf("line %q: History %v, want %v", l.Text, l.History, isHist)
				}
			}
		})
	}
}

// TestBackstop: a write through a hard link in an unwatched directory
// sends no event for the watched one; the periodic check finds it.
func TestBackstop(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	watched, other := filepath.Join(dir, "logs"), filepath.Join(dir, "elsewhere")
	mustDo(t, os.Mkdir(watched, 0o755))
	mustDo(t, os.Mkdir(other, 0o755))
	path := filepath.Join(watched, "app.log")
	writeFile(t, path, "first\n")
	link := filepath.Join(other, "link")
	mustDo(t, os.Link(path, link))
	h := startFollower(t, Options{Sources: logGlob(watched), Backstop: 100 * time.Millisecond})
	h.waitText("first")
	appendFile(t, link, "second\n")
	h.waitText("second")
	if got := texts(h.got()); !slices.Equal(got, []string{"first", "second"}) {
		t.Fatalf("got %q", got)
	}
}

// TestDirectoryRecreated: the log directory is deleted with its files and
// made again; the watch moves to the parent meanwhile and back.
func TestDirectoryRecreated(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	logs := filepath.Join(dir, "logs")
	mustDo(t, os.Mkdir(logs, 0o755))
	h := startFollower(t, Options{Sources: logGlob(logs), Backstop: longBackstop})
	appendFile(t, filepath.Join(logs, "app.log"), "before\n")
	h.waitText("before")
	mustDo(t, os.RemoveAll(logs))
	mustDo(t, os.Mkdir(logs, 0o755))
	appendFile(t, filepath.Join(logs, "app.log"), "after\n")
	h.waitText("after")
	if got := texts(h.got()); !slices.Equal(got, []string{"before", "after"}) {
		t.Fatalf("got %q", got)
	}
}
