package classify

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// want is the part of a Finding the fixture tests pin down.
type want struct {
	line    int64
	kind    Kind
	rule    string
	session string
	time    string // RFC 3339, "" for none
	idle    time.Duration
	path    string
}

func TestScanFixtures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file              string
		lines, candidates int64
		findings          []want
	}{
		{"dsh-host.log", 16, 8, []want{
			{line: 3, kind: Reconnected, rule: "mcp_server_connected", session: "6f1c…1b2c", time: "2025-11-29T08:00:01.532Z"},
			{line: 4, kind: SSEStream404, rule: "sse_stream_404", time: "2025-11-29T08:00:01.533Z"},
			{line: 8, kind: SessionLost, rule: "post_404", time: "2025-11-29T20:15:44.871Z"},
			{line: 9, kind: SessionLost, rule: "post_404", session: "6f1c…1b2c", time: "2025-11-29T20:15:44.872Z"},
			{line: 12, kind: Reconnected, rule: "reconnected", session: "0a9b…6c5d", time: "2025-11-29T20:16:02.7Z"},
			{line: 15, kind: Reconnected, rule: "connection_reestablished", time: "2025-11-29T20:18:30Z"},
		}},
		{"nowledge-mem.log", 13, 7, []want{
			{line: 2, kind: IdleTimeoutAnnounced, rule: "idle_timeout_configured", time: "2025-11-29T08:00:00.104988Z",
				idle: 12 * time.Hour, path: "/home/u/.local/share/co.nowledge.mem.desktop/mcp-sessions.json"},
			{line: 8, kind: SessionLost, rule: "session_not_found", session: "6f1c…1b2c", time: "2025-11-29T20:15:44.870112Z"},
			{line: 9, kind: SessionLost, rule: "rmcp_session_not_found", time: "2025-11-29T20:15:44.870555Z"},
			{line: 10, kind: SessionLost, rule: "session_not_found", session: "0a9b…6c5d", time: "2025-11-29T20:16:02.690001Z"},
			{line: 11, kind: IdleTimeoutAnnounced, rule: "idle_timeout_configured", time: "2025-11-30T09:00:00.000001Z",
				idle: time.Hour, path: "/Users/u/Library/Application Support/co.nowledge.mem.desktop/mcp-sessions.json"},
			{line: 12, kind: IdleTimeoutAnnounced, rule: "idle_timeout_configured", time: "2025-11-30T09:00:00Z",
				idle: 10 * time.Minute, path: "/tmp/with space/mcp-sessions.json"},
			{line: 13, kind: IdleTimeoutAnnounced, rule: "idle_timeout_configured", time: "2025-11-30T10:00:05Z"},
		}},
		{"ts-server.log", 11, 9, []want{
			{line: 4, kind: SessionLost, rule: "no_valid_session_id", time: "2025-11-29T08:30:00Z"},
			{line: 5, kind: SessionLost, rule: "jsonrpc_32001_session_not_found", session: "1d2c…4c5d", time: "2025-11-29T08:31:00Z"},
			{line: 6, kind: LegacyHeaderRejected, rule: "legacy_protocol_version", time: "2025-11-29T08:32:00Z"},
			{line: 8, kind: LegacyHeaderRejected, rule: "legacy_session_header", time: "2025-11-29T08:33:00Z"},
			{line: 10, kind: SessionLost, rule: "session_terminated", session: "2e3d…5d6e", time: "2025-11-29T08:34:00Z"},
			{line: 11, kind: Reconnected, rule: "reconnected", time: "2025-11-29T08:35:00.123Z"},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join("testdata", tc.file)
			rep, err := Scan(context.Background(), []string{path}, &Options{Location: time.UTC})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Files) != 1 {
				t.Fatalf("files %+v", rep.Files)
			}
			sum := rep.Files[0]
			if sum.File != path || sum.Lines != tc.lines || sum.Candidates != tc.candidates || sum.Findings != len(tc.findings) {
				t.Errorf("summary %+v, want %d lines, %d candidates, %d findings", sum, tc.lines, tc.candidates, len(tc.findings))
			}
			checkFindings(t, rep.Findings, tc.findings)
			for _, f := range rep.Findings {
				if f.File != path {
					t.Errorf("finding file %q", f.File)
				}
			}
		})
	}
}

func checkFindings(t *testing.T, got []Finding, want []want) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%d findings, want %d", len(got), len(want))
	}
	for i := range min(len(got), len(want)) {
		g, w := got[i], want[i]
		gt := ""
		if !g.Match.Time.IsZero() {
			gt = g.Match.Time.UTC().Format(time.RFC3339Nano)
		}
		if g.Line != w.line || g.Match.Kind != w.kind || g.Match.Rule != w.rule || g.Match.Session != w.session ||
			gt != w.time || g.Match.IdleTimeout != w.idle || g.Match.StorePath != w.path {
			t.Errorf("finding %d:\n got line %d %v %s %q %s %v %q\nwant line %d %v %s %q %s %v %q", i,
				g.Line, g.Match.Kind, g.Match.Rule, g.Match.Session, gt, g.Match.IdleTimeout, g.Match.StorePath,
				w.line, w.kind, w.rule, w.session, w.time, w.idle, w.path)
		}
	}
}

// fixtureIDs are the session ids in testdata; none may leave a report whole.
var fixtureIDs = []string{"6f1c2b3a-9d4e-4f5a-8b6c-7d8e9f0a1b2c", "0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d",
	"1d2c3b4a-5e6f-4a7b-8c9d-0e1f2a3b4c5d", "2e3d4c5b-6a7f-4b8c-9d0e-1f2a3b4c5d6e"}

func fixturePaths(t *testing.T) []string {
	t.Helper()
	paths, err := filepath.Glob("testdata/*.log")
	if err != nil || len(paths) != 3 {
		t.Fatalf("fixtures %v %v", paths, err)
	}
	return paths
}

// reference classifies data line by line the slow, obvious way.
func reference(data []byte, maxLine int) map[int64]Match {
	out := map[int64]Match{}
	if len(data) == 0 {
		return out
	}
	lines := bytes.Split(data, []byte("\n"))
	if data[len(data)-1] == '\n' {
		lines = lines[:len(lines)-1]
	}
	for i, l := range lines {
		if m, ok := classifyLine(l, time.UTC, maxLine); ok {
			if m.Session == "" { // a report names what display masking hides
				m.Session = displaySession(stripANSI(clip(l, maxLine)))
			}
			m.Session = MaskSession(m.Session)
			out[int64(i+1)] = m
		}
	}
	return out
}

// scanBytes runs the scanner over data as over a file of that content.
func scanBytes(t *testing.T, s *scanner, data []byte) (FileSummary, []Finding) {
	t.Helper()
	sum, found, err := s.scanAt(context.Background(), bytes.NewReader(data), int64(len(data)), "mem")
	if err != nil {
		t.Fatal(err)
	}
	return sum, found
}

func checkAgainstReference(t *testing.T, found []Finding, ref map[int64]Match) {
	t.Helper()
	if len(found) != len(ref) {
		t.Errorf("%d findings, reference has %d", len(found), len(ref))
	}
	last := int64(0)
	for _, f := range found {
		if f.Line <= last {
			t.Errorf("line %d after %d: not in order", f.Line, last)
		}
		last = f.Line
		m, ok := ref[f.Line]
		if !ok {
			t.Errorf("line %d found, reference has no match (%+v)", f.Line, f.Match)
			continue
		}
		if !m.Time.Equal(f.Match.Time) {
			t.Errorf("line %d time %v, reference %v", f.Line, f.Match.Time, m.Time)
		}
		m.Time = f.Match.Time
		if m != f.Match {
			t.Errorf("line %d: %+v, reference %+v", f.Line, f.Match, m)
		}
	}
}

// TestScanChunkBoundaries scans the fixtures, CRLF and LF alike, with
// every small chunk size, so that literals, line ends and "\r\n" straddle
// reads at every offset.
func TestScanChunkBoundaries(t *testing.T) {
	t.Parallel()
	var all []byte
	for _, p := range fixturePaths(t) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, b...)
	}
	crlf := bytes.ReplaceAll(all, []byte("\n"), []byte("\r\n"))
	for _, data := range [][]byte{all, crlf, all[:len(all)-1]} {
		ref := reference(data, MaxLine)
		if len(ref) != 19 {
			t.Fatalf("reference has %d findings, want 19", len(ref))
		}
		for chunk := 1; chunk <= 130; chunk++ {
			s := &scanner{chunk: chunk, maxLine: MaxLine, maxFindings: -1, loc: time.UTC,
				workers: 1 + chunk%4, minSection: 1}
			sum, found := scanBytes(t, s, data)
			checkAgainstReference(t, found, ref)
			if sum.Lines != 40 || sum.Bytes != int64(len(data)) {
				t.Fatalf("chunk %d: summary %+v", chunk, sum)
			}
			if t.Failed() {
				t.Fatalf("chunk %d failed", chunk)
			}
		}
	}
}

// TestScanStraddlesRealChunk puts a literal across the 4 MiB read boundary
// of an ordinary Scan.
func TestScanStraddlesRealChunk(t *testing.T) {
	t.Parallel()
	const prefix = "2025-11-29T20:15:44.870Z WARN "
	target := chunkSize - 6 - len(prefix) // where the hit line starts
	var b bytes.Buffer
	k := target/64 - 1
	for i := range k {
		fmt.Fprintf(&b, "%-63s\n", fmt.Sprintf("2025-11-29T08:00:00Z info filler line %d", i))
	}
	b.WriteString(strings.Repeat("f", target-b.Len()-1) + "\n")
	if b.Len() != target {
		t.Fatalf("filler %d bytes, want %d", b.Len(), target)
	}
	b.WriteString(prefix + "Session not found\n")
	b.WriteString("after\n")
	b.WriteString("Reconnected") // last line, no newline
	path := filepath.Join(t.TempDir(), "big.log")
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	rep, err := Scan(context.Background(), []string{path}, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkFindings(t, rep.Findings, []want{
		{line: int64(k + 2), kind: SessionLost, rule: "session_not_found", time: "2025-11-29T20:15:44.87Z"},
		{line: int64(k + 4), kind: Reconnected, rule: "reconnected"},
	})
	if got := rep.Files[0].Lines; got != int64(k+4) {
		t.Errorf("lines %d, want %d", got, k+4)
	}
}

func TestScanEdgeFiles(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		data  string
		lines int64
		want  []want
	}{
		{"empty", "", 0, nil},
		{"only newline", "\n", 1, nil},
		{"no trailing newline", "a\nSession not found", 2, []want{{line: 2, kind: SessionLost, rule: "session_not_found"}}},
		{"crlf", "x\r\nSession terminated\r\n\r\nreconnected\r\n", 4, []want{
			{line: 2, kind: SessionLost, rule: "session_terminated"},
			{line: 4, kind: Reconnected, rule: "reconnected"}}},
		{"two literals one line", "Session not found; Reconnected\n", 1, []want{{line: 1, kind: SessionLost, rule: "session_not_found"}}},
		{"binary", "\x00\xff\x00Session not found\x00\n\x00", 2, []want{{line: 1, kind: SessionLost, rule: "session_not_found"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "x.log")
			if err := os.WriteFile(path, []byte(tc.data), 0o600); err != nil {
				t.Fatal(err)
			}
			rep, err := Scan(context.Background(), []string{path}, nil)
			if err != nil {
				t.Fatal(err)
			}
			checkFindings(t, rep.Findings, tc.want)
			if rep.Files[0].Lines != tc.lines {
				t.Errorf("lines %d, want %d", rep.Files[0].Lines, tc.lines)
			}
			for _, f := range rep.Findings {
				if strings.ContainsAny(f.Text, "\r\n\x00") {
					t.Errorf("text %q keeps control bytes", f.Text)
				}
			}
		})
	}
}

// TestScanLongLines: a line longer than maxLine is judged by its first
// maxLine bytes, whether it fits in one read or spans several.
func TestScanLongLines(t *testing.T) {
	t.Parallel()
	const maxLine = 64
	data := []byte("Session not found A\n" + // 1 hit
		strings.Repeat("x", 100) + "Session not found\n" + // 2 literal past maxLine
		"Session not found " + strings.Repeat("y", 100) + "\n" + // 3 hit
		strings.Repeat("z", 300) + "\n" + // 4 long, nothing
		strings.Repeat("w", 47) + "Session not found" + strings.Repeat("v", 10) + "\n" + // 5 literal ends at 64: hit
		strings.Repeat("w", 48) + "Session not found\n" + // 6 ends at 65: no
		"reconnected") // 7 hit, no newline
	ref := reference(data, maxLine)
	for _, l := range []int64{1, 3, 5, 7} {
		if _, ok := ref[l]; !ok {
			t.Fatalf("reference misses line %d: %v", l, ref)
		}
	}
	if len(ref) != 4 {
		t.Fatalf("reference %v", ref)
	}
	for _, chunk := range []int{1, 7, 8, 50, 63, 64, 65, 200, 1000} {
		s := &scanner{chunk: chunk, maxLine: maxLine, maxFindings: -1, loc: time.UTC,
			workers: 1 + chunk%4, minSection: 1}
		sum, found := scanBytes(t, s, data)
		checkAgainstReference(t, found, ref)
		if sum.Lines != 7 {
			t.Errorf("chunk %d: %d lines", chunk, sum.Lines)
		}
		if t.Failed() {
			t.Fatalf("chunk %d", chunk)
		}
	}
}

// TestScanMiBLines runs the default scanner over lines longer than MaxLine.
func TestScanMiBLines(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("ordinary words 0123456789 ", (MaxLine*3/2)/26)
	data := long + "Session not found\n" + // 1: literal after MaxLine
		"Reconnected\n" + // 2
		"Session terminated " + long + "\n" + // 3: literal first
		long // 4: no newline
	path := filepath.Join(t.TempDir(), "long.log")
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	rep, err := Scan(context.Background(), []string{path}, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkFindings(t, rep.Findings, []want{
		{line: 2, kind: Reconnected, rule: "reconnected"},
		{line: 3, kind: SessionLost, rule: "session_terminated"},
	})
	if s := rep.Files[0]; s.Lines != 4 || s.Candidates != 2 {
		t.Errorf("summary %+v", s)
	}
	if n := len(rep.Findings[1].Text); n > MaxText+len("…") {
		t.Errorf("text kept %d bytes", n)
	}
}

func TestScanMaxFindings(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "many.log")
	if err := os.WriteFile(path, []byte(strings.Repeat("Session not found\nreconnected\n", 3)), 0o600); err != nil {
		t.Fatal(err)
	}
	rep, err := Scan(context.Background(), []string{path}, &Options{MaxFindings: 2})
	if err != nil {
		t.Fatal(err)
	}
	s := rep.Files[0]
	if len(rep.Findings) != 2 || s.Findings != 6 || s.Dropped != 4 {
		t.Errorf("kept %d, summary %+v", len(rep.Findings), s)
	}
	if rep.Counts["session_lost"] != 3 || rep.Counts["reconnected"] != 3 || rep.Counts["idle_timeout"] != 0 {
		t.Errorf("counts %v", rep.Counts)
	}
	rep, err = Scan(context.Background(), []string{path}, &Options{MaxFindings: -1})
	if err != nil || len(rep.Findings) != 6 {
		t.Errorf("no cap: %d findings, %v", len(rep.Findings), err)
	}
}

func TestScanErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.log")
	rep, err := Scan(context.Background(), []string{missing, dir, "testdata/ts-server.log"}, nil)
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("err %v, want ErrNotExist among them", err)
	}
	if err == nil || !strings.Contains(err.Error(), dir) {
		t.Errorf("directory not reported: %v", err)
	}
	if len(rep.Files) != 3 || rep.Files[0].Error == "" || rep.Files[1].Error == "" || rep.Files[2].Error != "" {
		t.Errorf("files %+v", rep.Files)
	}
	if rep.Files[2].Findings != 6 || len(rep.Findings) != 6 {
		t.Errorf("the readable file was not scanned: %+v", rep.Files[2])
	}
}

func TestScanCanceled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rep, err := Scan(ctx, fixturePaths(t), nil)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err %v", err)
	}
	if len(rep.Files) != 1 || rep.Files[0].Error == "" {
		t.Errorf("scan went on after cancel: %+v", rep.Files)
	}
}

func TestSections(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 100)
	tests := []struct {
		name    string
		data    string
		workers int
		want    []int64
	}{
		{"even lines", "aaa\nbbb\nccc\nddd\n", 4, []int64{0, 4, 8, 12}},
		{"cut right after a newline", "aaa\nbbb\n", 2, []int64{0, 4}},
		{"cut inside a line", "aa\nbbbbbb\nc\n", 2, []int64{0, 10}},
		{"one long line covers the cuts", long + "\nend\n", 4, []int64{0, 101}},
		{"no newline", long, 3, []int64{0}},
		{"tiny file", "a", 4, []int64{0}},
		{"one worker", "aaa\nbbb\n", 1, []int64{0}},
	}
	for _, tc := range tests {
		s := &scanner{workers: tc.workers, minSection: 1}
		got, err := s.sections(strings.NewReader(tc.data), int64(len(tc.data)))
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %v %v, want %v", tc.name, got, err, tc.want)
		}
		for _, c := range got[1:] {
			if tc.data[c-1] != '\n' {
				t.Errorf("%s: section at %d is not a line start", tc.name, c)
			}
		}
	}
	mid := strings.Repeat("line\n", 300_000) // 1.5 MB
	for _, c := range []struct {
		min  int64
		want int
	}{{1 << 20, 1}, {512 << 10, 2}, {1, 4}} {
		s := &scanner{workers: 4, minSection: c.min}
		if got, err := s.sections(strings.NewReader(mid), int64(len(mid))); err != nil || len(got) != c.want {
			t.Errorf("minSection %d: %d sections %v, want %d", c.min, len(got), err, c.want)
		}
	}
}

// TestScanSectionsMaxFindings: the cap applies to the joined result.
func TestScanSectionsMaxFindings(t *testing.T) {
	t.Parallel()
	data := []byte(strings.Repeat("Session not found\n", 40))
	s := &scanner{chunk: 16, maxLine: MaxLine, maxFindings: 5, loc: time.UTC, workers: 4, minSection: 1}
	sum, found := scanBytes(t, s, data)
	if len(found) != 5 || sum.Findings != 40 || sum.Dropped != 35 || sum.Lines != 40 || sum.Counts["session_lost"] != 40 {
		t.Errorf("kept %d, summary %+v", len(found), sum)
	}
	for i, f := range found {
		if f.Line != int64(i+1) {
			t.Errorf("finding %d on line %d", i, f.Line)
		}
	}
}

// TestScanPathSections: a real file scanned in sections gives what one pass
// gives.
func TestScanPathSections(t *testing.T) {
	t.Parallel()
	for _, p := range fixturePaths(t) {
		one := newScanner(&Options{Location: time.UTC})
		one.workers = 1
		many := newScanner(&Options{Location: time.UTC})
		many.workers, many.minSection = 4, 1
		s1, f1, err1 := one.scanPath(context.Background(), p)
		s4, f4, err4 := many.scanPath(context.Background(), p)
		if err1 != nil || err4 != nil {
			t.Fatal(err1, err4)
		}
		if !slices.EqualFunc(f1, f4, func(a, b Finding) bool {
			return a.Line == b.Line && a.Text == b.Text && a.Match.Rule == b.Match.Rule && a.Match.Time.Equal(b.Match.Time)
		}) {
			t.Errorf("%s: findings differ:\n%v\n%v", p, f1, f4)
		}
		if s1.Lines != s4.Lines || s1.Bytes != s4.Bytes || s1.Candidates != s4.Candidates || s1.Findings != s4.Findings {
			t.Errorf("%s: summaries differ: %+v %+v", p, s1, s4)
		}
	}
}
