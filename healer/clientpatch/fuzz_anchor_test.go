package clientpatch

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// anchorSpec restates, independently of edit.go, where each block of the
// current patch version goes: the line matched (trimmed; prefix or whole),
// the line that must follow it (""), and the offsets of the insertion point
// and of the anchor line (whose indentation the block takes) from it.
type anchorSpec struct {
	name, line string
	prefix     bool
	next       string // the following line, trimmed, must be this
	needNext   bool   // a following line must exist
	at, anchor int
}

var anchorSpecs = []anchorSpec{
	{name: "module", line: "function startConnection(", prefix: true},
	{name: "onerror", line: "generation.onclose = () => {"},
	{name: "register", line: "let settling = connectGeneration(true);", at: 1},
	{name: "dispose", line: "async dispose() {", next: "disposed = true;", needNext: true, at: 2, anchor: 1},
	{name: "retry", line: "function callToolUncached(client, rawName, args, exec, opts) {", needNext: true, at: 1, anchor: 1},
}

// expect returns where spec's block goes in lines, or ok=false when its
// anchor is missing, repeated, or not followed as required.
func (s anchorSpec) expect(lines []string) (at, anchor int, ok bool) {
	idx, n := -1, 0
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if t == s.line || s.prefix && strings.HasPrefix(t, s.line) {
			idx, n = i, n+1
		}
	}
	if n != 1 {
		return 0, 0, false
	}
	if s.needNext && (idx+1 >= len(lines) || s.next != "" && strings.TrimSpace(lines[idx+1]) != s.next) {
		return 0, 0, false
	}
	return idx + s.at, idx + s.anchor, true
}

func indentOf(s string) string { return s[:len(s)-len(strings.TrimLeft(s, " \t"))] }

// FuzzFindAnchors: the anchor finders of every block agree with a plain
// restatement of the anchors (found exactly when the anchor is there once,
// at the same line, in bounds); a miss wraps ErrAnchorsMissing; and build
// succeeds exactly when every anchor is found at distinct lines, putting
// each block right before its line, indented like its anchor.
func FuzzFindAnchors(f *testing.F) {
	_, orig := realClient(f)
	for _, s := range [][]byte{
		orig, nil, []byte("\n"),
		[]byte("function startConnection(a) {\n\t\tgeneration.onclose = () => {\n\tlet settling = connectGeneration(true);\n\t\tasync dispose() {\n\t\t\tdisposed = true;\nfunction callToolUncached(client, rawName, args, exec, opts) {\n  return 1;"),
		[]byte("function callToolUncached(client, rawName, args, exec, opts) {"),
		[]byte("let settling = connectGeneration(true);\nfunction startConnection(\r\n\u00a0async dispose() {\r\n disposed = true;\r"),
		[]byte("async dispose() {\nasync dispose() {\ndisposed = true;"),
	} {
		f.Add(s)
	}
	ps := parts(Version)
	if len(ps) != len(anchorSpecs) {
		f.Fatalf("%d parts, %d specs: restate the new anchor here", len(ps), len(anchorSpecs))
	}
	f.Fuzz(func(t *testing.T, content []byte) {
		lines := strings.Split(string(content), "\n")
		allFound := checkAnchors(t, ps, lines)
		out, err := build(content)
		if hasMarkers(lines) {
			if err == nil {
				t.Fatal("built over existing markers")
			}
			return
		}
		if (err == nil) != allFound {
			t.Fatalf("build err %v, every anchor found at distinct lines: %v", err, allFound)
		}
		if err != nil {
			if !errors.Is(err, ErrAnchorsMissing) {
				t.Fatalf("build error wraps no sentinel: %v", err)
			}
			return
		}
		checkPlacement(t, lines, out)
	})
}

// checkPlacement: in the built file each block's end marker is followed by
// the line the finder named, and its begin marker carries the anchor's
// indentation.
func checkPlacement(t *testing.T, lines []string, out []byte) {
	t.Helper()
	got := strings.Split(string(out), "\n")
	for _, p := range parts(Version) {
		at, anchor, _ := p.find(lines)
		begin, end := -1, -1
		for i, l := range got {
			switch strings.TrimSpace(l) {
			case beginMarker(p.name, Version):
				begin = i
			case endMarker(p.name, Version):
				end = i
			}
		}
		if begin < 0 || end <= begin {
			t.Fatalf("%s: markers at %d, %d", p.name, begin, end)
		}
		if !strings.HasPrefix(got[begin], indentOf(lines[anchor])+"/*") {
			t.Fatalf("%s: begin marker %q, anchor %q", p.name, got[begin], lines[anchor])
		}
		if at < len(lines) && (end+1 >= len(got) || got[end+1] != lines[at]) {
			t.Fatalf("%s: the block is not right before line %d %q", p.name, at+1, lines[at])
		}
		if at == len(lines) && end != len(got)-1 {
			t.Fatalf("%s: a block due at the end is followed by %q", p.name, got[end+1])
		}
	}
	if back, _, ok := strip(out); !ok || !bytes.Equal(back, []byte(strings.Join(lines, "\n"))) {
		t.Fatal("strip(build(x)) != x")
	}
}

// checkAnchors checks each part's finder against its reference spec on
// lines, and reports whether every anchor was found, each at its own line
// (what build needs to succeed).
func checkAnchors(t *testing.T, ps []part, lines []string) (allFound bool) {
	t.Helper()
	ats := map[int]bool{}
	allFound = true
	for i, p := range ps {
		spec := anchorSpecs[i]
		if p.name != spec.name {
			t.Fatalf("part %d is %q, spec %q", i, p.name, spec.name)
		}
		at, anchor, err := p.find(lines)
		wantAt, wantAnchor, ok := spec.expect(lines)
		if ok != (err == nil) {
			t.Fatalf("%s: finder err %v, reference found=%v", p.name, err, ok)
		}
		if err != nil {
			if !errors.Is(err, ErrAnchorsMissing) {
				t.Fatalf("%s: error wraps no sentinel: %v", p.name, err)
			}
			allFound = false
			continue
		}
		if at != wantAt || anchor != wantAnchor {
			t.Fatalf("%s: at %d anchor %d, want %d %d", p.name, at, anchor, wantAt, wantAnchor)
		}
		if anchor < 0 || anchor >= len(lines) || at < 0 || at > len(lines) {
			t.Fatalf("%s: at %d anchor %d out of %d lines", p.name, at, anchor, len(lines))
		}
		if ats[at] {
			allFound = false // two blocks on one line: build must refuse
		}
		ats[at] = true
	}
	return allFound
}
