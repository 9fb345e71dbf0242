package follow

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func fpOf(t testing.TB, content string) string {
	t.Helper()
	fp, ok := fingerprint([]byte(content))
	if !ok {
		t.Fatalf("no fingerprint for %q", content)
	}
	return fp
}

// endOf is the offset just after the line with text in content.
func endOf(t testing.TB, content, text string) int64 {
	t.Helper()
	i := strings.Index(content, text+"\n")
	if i < 0 {
		t.Fatalf("%q not in content", text)
	}
	return int64(i + len(text) + 1)
}

// Long: a table of 10 cases.
func TestResume(t *testing.T) {
	t.Parallel()
	const content = "first\nline-2\nline-3\nline-4\n"
	const other = "other-first\nother-2\n"
	type pos struct {
		file, after string // position just after line `after` of `file`
		content     string // fingerprint source; "" means content
	}
	cases := []struct {
		name       string
		glob       string
		files      map[string]string // file name → content at start
		checkpoint []pos
		resume     []pos
		want       []string // lines of app.log (and app.log.1), then "line-5" appended to app.log
		history    bool     // the first lines are history
	}{
		{name: "no saved position: history", files: map[string]string{"app.log": content},
			want: []string{"first", "line-2", "line-3", "line-4"}, history: true},
		{name: "checkpoint only", files: map[string]string{"app.log": content},
			checkpoint: []pos{{"app.log", "line-2", ""}}, want: []string{"line-3", "line-4"}},
		{name: "resume only", files: map[string]string{"app.log": content},
			resume: []pos{{"app.log", "first", ""}}, want: []string{"line-2", "line-3", "line-4"}},
		{name: "resume ahead of checkpoint", files: map[string]string{"app.log": content},
			checkpoint: []pos{{"app.log", "line-2", ""}}, resume: []pos{{"app.log", "line-3", ""}}, want: []string{"line-4"}},
		{name: "checkpoint ahead of resume", files: map[string]string{"app.log": content},
			checkpoint: []pos{{"app.log", "line-3", ""}}, resume: []pos{{"app.log", "line-2", ""}}, want: []string{"line-4"}},
		{name: "at the end", files: map[string]string{"app.log": content},
			resume: []pos{{"app.log", "line-4", ""}}},
		{name: "fingerprint changed: from 0", files: map[string]string{"app.log": other},
			checkpoint: []pos{{"app.log", "line-2", content}}, want: []string{"other-first", "other-2"}},
		{name: "file shorter than position: from 0", files: map[string]string{"app.log": "first\nshort\n"},
			checkpoint: []pos{{"app.log", "line-4", content}}, want: []string{"first", "short"}},
		// A saved position whose file is gone (deleted in a rotation while
		// the daemon was down) is dropped, not dereferenced: the soak found
		// that panic.
		{name: "rotated file deleted while down", glob: "app.log*",
			files:      map[string]string{"app.log": content},
			checkpoint: []pos{{"app.log.1", "other-2", other}},
			want:       []string{"first", "line-2", "line-3", "line-4"}, history: true},
		{name: "renamed while down", glob: "app.log*",
			files:      map[string]string{"app.log.1": content, "app.log": other},
			checkpoint: []pos{{"app.log", "line-2", content}},
			want:       []string{"other-first", "other-2", "line-3", "line-4"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			mk := func(ps []pos) []Position {
				var out []Position
				for _, p := range ps {
					c := p.content
					if c == "" {
						c = content
					}
					out = append(out, Position{Path: filepath.Join(dir, p.file), Fingerprint: fpOf(t, c), Offset: endOf(t, c, p.after)})
				}
				return out
			}
			for name, c := range tc.files {
				writeFile(t, filepath.Join(dir, name), c)
			}
			ckpt := filepath.Join(t.TempDir(), "checkpoint.json")
			if tc.checkpoint != nil {
				mustDo(t, writeCheckpoint(ckpt, mk(tc.checkpoint)))
			}
			glob := tc.glob
			if glob == "" {
				glob = "app.log"
			}
			h := startFollower(t, Options{
				Sources:        []Source{{Tag: "t", Globs: []string{filepath.Join(dir, glob)}}},
				CheckpointFile: ckpt,
				Resume:         mk(tc.resume),
				Backstop:       longBackstop,
			})
			appendFile(t, filepath.Join(dir, "app.log"), "line-5\n")
			h.waitText("line-5")
			got := h.got()
			want := append(slices.Clone(tc.want), "line-5")
			if !slices.Equal(texts(got), want) {
				t.Fatalf("got %q, want %q", texts(got), want)
			}
			for _, l := range got[:len(got)-1] {
				if l.History != tc.history {
					t.Fatalf("line %q: History %v", l.Text, l.History)
				}
			}
			checkOrderPerFile(t, got)
		})
	}
}

func TestCheckpointFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "state", "checkpoint.json")
	fp := fpOf(t, "x\n")
	want := []Position{{Path: "/b", Fingerprint: fp, Offset: 9}, {Path: "/a", Fingerprint: fp, Offset: 2}}
	mustDo(t, writeCheckpoint(path, slices.Clone(want)))
	mustDo(t, writeCheckpoint(path, slices.Clone(want))) // replacing works too
	fi, err := os.Stat(path)
	mustDo(t, err)
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, want 0600", fi.Mode().Perm())
	}
	entries, err := os.ReadDir(filepath.Dir(path))
	mustDo(t, err)
	if len(entries) != 1 {
		t.Fatalf("left behind: %v", entries)
	}
	got, err := loadCheckpoint(path)
	mustDo(t, err)
	slices.Reverse(want) // saved sorted by path
	if !slices.Equal(got, want) {
		t.Fatalf("loaded %v, want %v", got, want)
	}
	if got, err := loadCheckpoint(filepath.Join(dir, "missing")); err != nil || got != nil {
		t.Fatalf("missing checkpoint: %v, %v", got, err)
	}
}

func TestBadCheckpoint(t *testing.T) {
	t.Parallel()
	fp := fpOf(t, "x\n")
	cases := map[string]string{
		"not json":          "{",
		"other version":     `{"version":2,"positions":[]}`,
		"unknown field":     `{"version":1,"positions":[],"extra":1}`,
		"bad fingerprint":   `{"version":1,"positions":[{"path":"/a","fingerprint":"zz","offset":3}]}`,
		"offset zero":       `{"version":1,"positions":[{"path":"/a","fingerprint":"` + fp + `","offset":0}]}`,
		"no path":           `{"version":1,"positions":[{"path":"","fingerprint":"` + fp + `","offset":3}]}`,
		"trailing document": `{"version":1,"positions":[]} {}`,
	}
	for name, doc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "checkpoint.json")
			writeFile(t, path, doc)
			_, err := New(Options{CheckpointFile: path})
			if !errors.Is(err, ErrBadCheckpoint) {
				t.Fatalf("New: %v, want ErrBadCheckpoint", err)
			}
		})
	}
}

func FuzzParseCheckpoint(f *testing.F) {
	f.Add([]byte(`{"version":1,"positions":[{"path":"/a","fingerprint":"0123456789abcdef0123456789abcdef","offset":3}]}`))
	f.Add([]byte(`{"version":1,"positions":null}`))
	f.Add([]byte(`{"version":1}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		ps, err := parseCheckpoint(data)
		if err != nil {
			if !errors.Is(err, ErrBadCheckpoint) {
				t.Fatalf("error %v is not ErrBadCheckpoint", err)
			}
			return
		}
		for _, p := range ps {
			if p.validate() != nil {
				t.Fatalf("accepted invalid %+v", p)
			}
		}
		enc, err := encodeCheckpoint(slices.Clone(ps))
		if err != nil {
			t.Fatal(err)
		}
		again, err := parseCheckpoint(enc)
		if err != nil || len(again) != len(ps) {
			t.Fatalf("round trip: %v, %d of %d", err, len(again), len(ps))
		}
	})
}

// TestCheckpointWhileRunning: acks reach the file within about a second,
// without waiting for Run to end.
func TestCheckpointWhileRunning(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "app.log")
	ckpt := filepath.Join(t.TempDir(), "checkpoint.json")
	h := startFollower(t, Options{Sources: logGlob(dir), CheckpointFile: ckpt, Backstop: longBackstop})
	writeFile(t, path, "one\ntwo\n")
	h.waitText("two")
	want := Position{Path: path, Fingerprint: fpOf(t, "one\n"), Offset: 8}
	waitUntil(t, "checkpoint with the acked line", func() bool {
		ps, err := loadCheckpoint(ckpt)
		return err == nil && slices.Contains(ps, want)
	})
}
