package follow

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// rotation is one way a log file gets rotated. It gets the writer's open
// file and returns the writer for what comes next. late says whether the
// old file can still take a line through the old descriptor.
type rotation struct {
	name    string
	glob    string
	late    bool
	rotate  func(t *testing.T, path string, w *os.File) *os.File
	maxOpen int // Options.MaxOpenFiles; negative: the file is polled
}

func renameCreate(t *testing.T, path string, w *os.File) *os.File {
	mustDo(t, os.Rename(path, path+".1"))
	return createFile(t, path)
}

func deleteRecreate(t *testing.T, path string, w *os.File) *os.File {
	mustDo(t, os.Remove(path))
	return createFile(t, path)
}

func copyTruncate(t *testing.T, path string, w *os.File) *os.File {
	src, err := os.Open(path)
	mustDo(t, err)
	defer src.Close()
	dst := createFile(t, path+".1")
	defer dst.Close()
	_, err = io.Copy(dst, src)
	mustDo(t, err)
	mustDo(t, os.Truncate(path, 0))
	return w // the writer keeps its O_APPEND descriptor
}

func truncateOpen(t *testing.T, path string, w *os.File) *os.File {
	nw, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC|os.O_APPEND, 0o644) // shell ">"
	mustDo(t, err)
	return nw
}

// replaceByRename saves the file the way editors do: a temp file renamed
// over it.
func replaceByRename(t *testing.T, path string, w *os.File) *os.File {
	tmp := filepath.Join(filepath.Dir(path), ".tmp")
	writeFile(t, tmp, "")
	mustDo(t, os.Rename(tmp, path))
	nw, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	mustDo(t, err)
	return nw
}

func createFile(t *testing.T, path string) *os.File {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND|os.O_EXCL, 0o644)
	mustDo(t, err)
	return f
}

func writeLines(t *testing.T, w *os.File, lines ...string) {
	t.Helper()
	_, err := w.WriteString(joinLines(lines))
	mustDo(t, err)
}

func TestRotation(t *testing.T) {
	t.Parallel()
	cases := []rotation{
		{name: "rename+create", glob: "app.log", late: true, rotate: renameCreate},
		{name: "rename within globs", glob: "app.log*", late: true, rotate: renameCreate},
		{name: "copytruncate", glob: "app.log", rotate: copyTruncate},
		{name: "truncate", glob: "app.log", rotate: truncateOpen},
		{name: "delete+recreate", glob: "app.log", late: true, rotate: deleteRecreate},
		{name: "replace by rename", glob: "app.log", rotate: replaceByRename},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			testRotation(t, tc)
		})
	}
}

// TestRotationPolled: a file polled instead of held open (over the
// descriptor budget) goes through every rotation with nothing lost or
// repeated, but for lines written to the old file after it was rotated
// away under a name no glob matches: there is no descriptor to read them
// through (package doc, Limits), so those cases write none.
func TestRotationPolled(t *testing.T) {
	t.Parallel()
	cases := []rotation{
		{name: "rename+create", glob: "app.log", rotate: renameCreate},
		{name: "rename within globs", glob: "app.log*", late: true, rotate: renameCreate},
		{name: "copytruncate", glob: "app.log", rotate: copyTruncate},
		{name: "truncate", glob: "app.log", rotate: truncateOpen},
		{name: "delete+recreate", glob: "app.log", rotate: deleteRecreate},
		{name: "replace by rename", glob: "app.log", rotate: replaceByRename},
	}
	for _, tc := range cases {
		tc.maxOpen = -1
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			testRotation(t, tc)
		})
	}
}

func testRotation(t *testing.T, tc rotation) {
	dir := t.TempDir()
	path := filepath.Join(dir, "app.log")
	h := startFollower(t, Options{
		Sources:      []Source{{Tag: "app", Globs: []string{filepath.Join(dir, tc.glob)}}},
		Backstop:     longBackstop,
		MaxOpenFiles: tc.maxOpen,
	})
	w := createFile(t, path)
	writeLines(t, w, "old-1", "old-2", "old-3")
	h.waitText("old-3")
	wantOld := lineList("old-", 1, 3)
	if tc.late {
		// Unread when the rotation happens: the old file is read to its end.
		writeLines(t, w, "old-4")
		wantOld = append(wantOld, "old-4")
	}
	nw := tc.rotate(t, path, w)
	if tc.late {
		writeLines(t, w, "old-5") // through the descriptor the writer still holds
		wantOld = append(wantOld, "old-5")
	}
	defer nw.Close()
	defer w.Close()
	wantNew := lineList("new-line-", 1, 3)
	for _, l := range wantNew {
		writeLines(t, nw, l)
	}
	writeLines(t, nw, "new-end")
	wantNew = append(wantNew, "new-end")
	for _, want := range append(wantOld, wantNew...) {
		h.waitText(want)
	}
	if tc.late {
		// The rotation has been handled (the new file was read): this
		// line can only come through the retired descriptor.
		writeLines(t, w, "old-6")
		wantOld = append(wantOld, "old-6")
		h.waitText("old-6")
	}
	got := h.got()
	old, cur := splitByPrefix(got, "old-"), splitByPrefix(got, "new-")
	if !slices.Equal(old, wantOld) || !slices.Equal(cur, wantNew) || len(got) != len(wantOld)+len(wantNew) {
		t.Fatalf("got %q\nwant old %q then new %q", texts(got), wantOld, wantNew)
	}
	checkOrderPerFile(t, got)
	for _, l := range got {
		if l.History || l.Tag != "app" {
			t.Fatalf("line %q: History %v, Tag %q", l.Text, l.History, l.Tag)
		}
		if strings.HasPrefix(string(l.Text), "new-") && l.Pos.Path != path {
			t.Fatalf("new line %q reported at %s", l.Text, l.Pos.Path)
		}
	}
	if tc.glob == "app.log*" {
		if last := findText(got, "old-6"); last.Pos.Path != path+".1" {
			t.Fatalf("line written after the rename reported at %s, want %s.1", last.Pos.Path, path)
		}
	}
}

func splitByPrefix(ls []Line, prefix string) []string {
	var out []string
	for _, l := range ls {
		if strings.HasPrefix(string(l.Text), prefix) {
			out = append(out, string(l.Text))
		}
	}
	return out
}

func findText(ls []Line, text string) Line {
	for _, l := range ls {
		if string(l.Text) == text {
			return l
		}
	}
	return Line{}
}

// TestRewriteInPlace covers content replaced from offset 0 without the
// file getting shorter: only the changed first bytes reveal it.
func TestRewriteInPlace(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "app.log")
	writeFile(t, path, "first-a\nsecond\n")
	f, err := openFile(path, "t", DefaultMaxLine)
	mustDo(t, err)
	defer f.close()
	var lines []string
	collect := func(b []byte, _ int64) bool { lines = append(lines, string(b)); return true }
	if _, stopped, err := f.read(make([]byte, 8), 1<<20, collect, func(int64) {}); err != nil || stopped {
		t.Fatalf("read: stopped %v, err %v", stopped, err)
	}
	if changed, err := f.refresh(); err != nil || changed {
		t.Fatalf("refresh of an unchanged file: changed %v, err %v", changed, err)
	}
	w, err := os.OpenFile(path, os.O_WRONLY, 0)
	mustDo(t, err)
	_, err = w.WriteAt([]byte("other-b\nlonger line\n"), 0)
	mustDo(t, err)
	mustDo(t, w.Close())
	if changed, err := f.refresh(); err != nil || !changed {
		t.Fatalf("refresh after rewrite: changed %v, err %v; want changed", changed, err)
	}
	f.restart()
	if changed, err := f.refresh(); err != nil || changed {
		t.Fatalf("refresh after restart: changed %v, err %v", changed, err)
	}
	if _, _, err := f.read(make([]byte, 8), 1<<20, collect, func(int64) {}); err != nil {
		t.Fatal(err)
	}
	want := []string{"first-a", "second", "other-b", "longer line"}
	if !slices.Equal(lines, want) {
		t.Fatalf("lines %q, want %q", lines, want)
	}
}

// TestTruncatedBetweenRefreshAndRead forces the order a busy machine can
// give: refresh sees the old file, then the file is truncated and written
// past the old offset, then the read comes. What the read finds at the old
// offset is the middle of a new line: it must not be delivered, and the
// read must say the file changed, so it is read again from 0.
func TestTruncatedBetweenRefreshAndRead(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "app.log")
	writeFile(t, path, "old-1\nold-2\nold-3\n")
	f, err := openFile(path, "t", DefaultMaxLine)
	mustDo(t, err)
	defer f.close()
	var lines []string
	collect := func(b []byte, _ int64) bool { lines = append(lines, string(b)); return true }
	if _, _, err := f.read(make([]byte, 8), 1<<20, collect, func(int64) {}); err != nil {
		t.Fatal(err)
	}
	if changed, err := f.refresh(); err != nil || changed {
		t.Fatalf("refresh of an unchanged file: changed %v, err %v", changed, err)
	}
	writeFile(t, path, "new-line-1\nnew-line-2\nnew-line-3\n") // truncates, then writes
	_, _, err = f.read(make([]byte, 8), 1<<20, collect, func(int64) {})
	if !errors.Is(err, errRewritten) {
		t.Fatalf("read after the rewrite: err %v, want errRewritten", err)
	}
	if want := []string{"old-1", "old-2", "old-3"}; !slices.Equal(lines, want) {
		t.Fatalf("lines %q, want only %q (no fragment of the new file)", lines, want)
	}
}
