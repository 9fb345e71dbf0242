package classify

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

// fuzzSeeds are the fixture lines plus a few awkward shapes.
func fuzzSeeds(f *testing.F) [][]byte {
	f.Helper()
	var seeds [][]byte
	for _, p := range []string{"testdata/dsh-host.log", "testdata/nowledge-mem.log", "testdata/ts-server.log"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		seeds = append(seeds, b)
		seeds = append(seeds, bytes.Split(b, []byte("\n"))...)
	}
	return append(seeds,
		[]byte("Session not found\r\nreconnected"),
		[]byte("\x00\xffSession not fou"),
		[]byte("session_id=\"abc\\\"12345678\" Session terminated"),
		[]byte("Unsupported protocol version: (supported versions: 2026-07-28"),
		[]byte(`{"ts":99999999999999999999,"time":"2025-02-29T00:00:00Z"} reconnected`),
		[]byte("MCP session idle timeout seconds= store_path=\""),
	)
}

// FuzzClassify: never panics; a match has a valid kind and rule; its session
// id is a substring of the line; and a match needs a prefilter literal,
// found by the skip-table matcher exactly as a plain search finds it.
func FuzzClassify(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	lits := Literals()
	f.Fuzz(func(t *testing.T, line []byte) {
		m, ok := LogLineIn(line, time.UTC)
		clipped := clip(line, MaxLine)
		var mask uint64
		for i, l := range lits {
			if bytes.Contains(clipped, []byte(l)) {
				mask |= 1 << uint(i)
			}
		}
		if got := std.match.present(clipped); got != mask {
			t.Fatalf("matcher found literals %b, plain search %b", got, mask)
		}
		if !ok {
			if m != (Match{}) {
				t.Fatalf("no match but %+v", m)
			}
			return
		}
		if !m.Kind.Valid() || m.Rule == "" {
			t.Fatalf("bad match %+v", m)
		}
		if mask == 0 {
			t.Fatalf("match %+v without a prefilter literal", m)
		}
		if m.Session != "" && !bytes.Contains(line, []byte(m.Session)) {
			t.Fatalf("session %q not in line", m.Session)
		}
		if m.Kind != IdleTimeoutAnnounced && (m.IdleTimeout != 0 || m.StorePath != "") {
			t.Fatalf("idle fields on %v", m.Kind)
		}
		if m.IdleTimeout < 0 {
			t.Fatalf("negative idle timeout %v", m.IdleTimeout)
		}
		txt := displayText(line, m.Session)
		if m.Session != "" && strings.Contains(txt, m.Session) {
			t.Fatalf("display text %q shows session %q", txt, m.Session)
		}
		if ds := displaySession(stripANSI(line)); ds != "" && strings.Contains(txt, ds) {
			t.Fatalf("display text %q shows the id %q it names", txt, ds)
		}
	})
}

// FuzzScanMatchesClassify: Scan finds exactly the lines Line
// matches, with the same match; and so does a scanner with tiny reads and a
// tiny line limit, against Line with that limit.
func FuzzScanMatchesClassify(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s, uint8(3), uint8(20))
	}
	f.Add([]byte(strings.Repeat("x", 300)+"reconnected\nSession not found"), uint8(1), uint8(0))
	f.Add([]byte("Session not found: 6f1c2b3a-9d4e-4f5a-8b6c-7d8e9f0a1b2c\nsid=0a9b8c7d6e5f Session terminated\n"), uint8(2), uint8(30))
	dir := f.TempDir() // one directory, not one per input: the fuzzer runs many
	f.Fuzz(func(t *testing.T, data []byte, chunk, maxLine uint8) {
		path := writeTemp(t, dir, data)
		rep, err := Scan(context.Background(), []string{path}, &Options{Location: time.UTC, MaxFindings: -1})
		if err != nil {
			t.Fatal(err)
		}
		checkAgainstReference(t, rep.Findings, reference(data, MaxLine))

		s := &scanner{chunk: 1 + int(chunk)%64, maxLine: 16 + int(maxLine), maxFindings: -1, loc: time.UTC,
			workers: 1 + int(maxLine)%4, minSection: 1}
		sum, found := scanBytes(t, s, data)
		checkAgainstReference(t, found, reference(data, s.maxLine))
		if sum.Lines != rep.Files[0].Lines || sum.Bytes != int64(len(data)) {
			t.Fatalf("small scanner summary %+v, file scan %+v", sum, rep.Files[0])
		}
	})
}

func writeTemp(t *testing.T, dir string, data []byte) string {
	t.Helper()
	f, err := os.CreateTemp(dir, "fuzz-*.log")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(f.Name()) })
	if _, err := f.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return f.Name()
}
