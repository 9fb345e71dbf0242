package follow

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestPartialLine(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "app.log")
	h := startFollower(t, Options{Sources: logGlob(dir), Backstop: longBackstop})
	// One write holds a whole line and the start of the next: once the
	// whole line is in, the start was read too and must still wait.
	appendFile(t, path, "complete\npar")
	h.waitText("complete")
	if got := texts(h.got()); !slices.Equal(got, []string{"complete"}) {
		t.Fatalf("after a partial line: %q", got)
	}
	appendFile(t, path, "ti")
	appendFile(t, path, "al\nnext\n")
	h.waitText("next")
	want := []string{"complete", "partial", "next"}
	if got := texts(h.got()); !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	if p := h.got()[1].Pos.Offset; p != int64(len("complete\npartial\n")) {
		t.Fatalf("offset of the completed line: %d", p)
	}
}

func TestLongLines(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		maxLine int
		line    int // length of the long line
		pieces  int // it is written in this many writes
		keep    bool
	}{
		{name: "4 MiB line, default limit", line: 4 << 20, pieces: 16},
		{name: "4 MiB line in one write", line: 4 << 20, pieces: 1},
		{name: "exactly the limit", maxLine: 100, line: 100, pieces: 3, keep: true},
		{name: "one over the limit", maxLine: 100, line: 101, pieces: 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			path := filepath.Join(dir, "app.log")
			h := startFollower(t, Options{Sources: logGlob(dir), MaxLine: tc.maxLine, Backstop: longBackstop})
			appendFile(t, path, "before\n")
			long := strings.Repeat("x", tc.line)
			for i := range tc.pieces {
				appendFile(t, path, long[i*len(long)/tc.pieces:(i+1)*len(long)/tc.pieces])
			}
			appendFile(t, path, "\nafter\n")
			h.waitText("after")
			want := []string{"before", "after"}
			if tc.keep {
				want = []string{"before", long, "after"}
			}
			if got := texts(h.got()); !slices.Equal(got, want) {
				t.Fatalf("got %d lines %.40q, want %d", len(got), got, len(want))
			}
			var skipped []warning
			for _, w := range h.warnings() {
				if isLineTooLong(w) {
					skipped = append(skipped, w)
				}
			}
			if wantSkips := 1 - b2i(tc.keep); len(skipped) != wantSkips {
				t.Fatalf("%d line-too-long warnings, want %d: %v", len(skipped), wantSkips, skipped)
			}
			if len(skipped) == 1 && (skipped[0].path != path || skipped[0].tag != "t") {
				t.Fatalf("warning names %s (%s)", skipped[0].path, skipped[0].tag)
			}
			if off := h.got()[len(want)-1].Pos.Offset; off != int64(len("before\n")+tc.line+len("\nafter\n")) {
				t.Fatalf("offset after the long line: %d", off)
			}
		})
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestBinaryJunk(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "app.log")
	h := startFollower(t, Options{Sources: logGlob(dir), Backstop: longBackstop})
	junk := [][]byte{
		[]byte("nul\x00inside"),
		{0xff, 0xfe, 0xfd, 'x'},
		[]byte("half rune \xe2\x82"),
		[]byte("carriage\r"),
		{},
		[]byte("\x00\x00\x00"),
		[]byte("ok"),
	}
	var data []byte
	for _, j := range junk {
		data = append(append(data, j...), '\n')
	}
	writeFile(t, path, string(data))
	h.waitText("ok")
	got := h.got()
	if len(got) != len(junk) {
		t.Fatalf("got %d lines, want %d: %q", len(got), len(junk), texts(got))
	}
	for i, l := range got {
		if !bytes.Equal(l.Text, junk[i]) {
			t.Fatalf("line %d: %q, want %q", i, l.Text, junk[i])
		}
	}
}

// TestSplitterMemory: a long line never grows the buffer past the limit.
func TestSplitterMemory(t *testing.T) {
	t.Parallel()
	s := splitter{max: 1000}
	chunk := bytes.Repeat([]byte("y"), 300)
	longs := 0
	for range 100 {
		s.feed(chunk, 0, func([]byte, int64) bool { t.Fatal("no line expected"); return false }, func(int64) { longs++ })
		if cap(s.partial) > 2*s.max {
			t.Fatalf("buffer grew to %d", cap(s.partial))
		}
	}
	if longs != 1 {
		t.Fatalf("%d long-line reports, want 1", longs)
	}
}

// FuzzSplitter: however the bytes are cut into reads, the lines are those
// of bytes.Split, minus over-long ones and the unterminated tail.
func FuzzSplitter(f *testing.F) {
	f.Add([]byte("a\nbb\n\nccc"), uint8(3), uint8(2))
	f.Add([]byte("\x00\xff\n\r\n"), uint8(1), uint8(0))
	f.Add(bytes.Repeat([]byte("long line\n"), 20), uint8(7), uint8(5))
	f.Fuzz(func(t *testing.T, data []byte, cut, maxLine uint8) {
		step := int(cut)%16 + 1
		s := splitter{max: int(maxLine)}
		var got [][]byte
		var ends []int64
		for off := 0; off < len(data); off += step {
			end := min(off+step, len(data))
			s.feed(data[off:end], int64(off), func(b []byte, e int64) bool {
				got = append(got, bytes.Clone(b))
				ends = append(ends, e)
				return true
			}, func(int64) {})
		}
		var want [][]byte
		var wantEnds []int64
		parts := bytes.Split(data, []byte("\n"))
		pos := int64(0)
		for _, p := range parts[:len(parts)-1] {
			pos += int64(len(p)) + 1
			if len(p) <= int(maxLine) {
				want = append(want, p)
				wantEnds = append(wantEnds, pos)
			}
		}
		if len(got) != len(want) {
			t.Fatalf("got %q, want %q", got, want)
		}
		for i := range got {
			if !bytes.Equal(got[i], want[i]) || ends[i] != wantEnds[i] {
				t.Fatalf("line %d: %q at %d, want %q at %d", i, got[i], ends[i], want[i], wantEnds[i])
			}
		}
	})
}

func TestBurst(t *testing.T) {
	t.Parallel()
	const n = 100_000
	dir := t.TempDir()
	h := startFollower(t, Options{Sources: logGlob(dir), Backstop: longBackstop})
	h.mu.Lock()
	h.slow = func(i int) { // a consumer that falls behind now and then
		if i%10_000 == 0 {
			waitBriefly()
		}
	}
	h.mu.Unlock()
	paths := []string{filepath.Join(dir, "a.log"), filepath.Join(dir, "b.log")}
	done := make(chan error, len(paths))
	for _, p := range paths {
		go func() { done <- writeBurst(p, filepath.Base(p), n/len(paths)) }()
	}
	for range paths {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	h.waitCount(n)
	got := h.got()
	if len(got) != n {
		t.Fatalf("%d lines, want %d", len(got), n)
	}
	next := map[string]int{}
	for _, l := range got {
		name, num, _ := bytes.Cut(l.Text, []byte(" "))
		i, err := strconv.Atoi(string(num))
		if err != nil || filepath.Join(dir, string(name)) != l.Pos.Path {
			t.Fatalf("line %q from %s", l.Text, l.Pos.Path)
		}
		if i != next[string(name)] {
			t.Fatalf("%s: line %d after %d", name, i, next[string(name)]-1)
		}
		next[string(name)]++
	}
	checkOrderPerFile(t, got)
}

// writeBurst appends n numbered lines in writes of a few lines each, some
// of which end inside a line.
func writeBurst(path, name string, n int) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	var buf []byte
	for i := range n {
		buf = append(buf, name...)
		buf = append(buf, ' ')
		buf = appendInt(buf, i)
		buf = append(buf, '\n')
		if len(buf) >= 200 || i == n-1 {
			cut := len(buf)
			if i != n-1 {
				cut -= 3 // leave part of the line for the next write
			}
			if _, err := f.Write(buf[:cut]); err != nil {
				return err
			}
			buf = append(buf[:0], buf[cut:]...)
		}
	}
	return f.Close()
}
