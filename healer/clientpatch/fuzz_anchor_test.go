package clientpatch

import (
	"bytes"
	"errors"
	"regexp"
	"strings"
	"testing"
)

// anchorSpec restates, independently of anchors.go, where each block of
// the current patch version goes: the line matched (spaces ignored; prefix
// or whole), the line that must follow it (""), and the offsets of the
// insertion point and of the anchor line (whose indentation the block
// takes) from it. orEnd: when the line is not there once, the block goes
// at the end of the file, before trailing blank and source-map lines.
type anchorSpec struct {
	name, line string
	prefix     bool
	next       string // the following line, spaces ignored, must be this
	needNext   bool   // a following line must exist
	at, anchor int
	orEnd      bool
}

var anchorSpecs = []anchorSpec{
	{name: "module", line: "function startConnection(", prefix: true, orEnd: true},
	{name: "onerror", line: "generation.onclose = () => {"},
	{name: "register", line: "let settling = connectGeneration(true);", at: 1},
	{name: "track", line: "generation.onclose = () => {"},
	{name: "retry", line: "function callToolUncached(client, rawName, args, exec, opts) {", needNext: true, at: 1, anchor: 1},
	{name: "dispose", line: "async dispose() {", next: "disposed = true;", needNext: true, at: 2, anchor: 1},
}

func spaceless(s string) string { return strings.Join(strings.Fields(s), "") }

// expect returns where spec's block goes in lines (anchor -1: no anchor
// line), or ok=false when its anchor is missing, repeated, or not
// followed as required.
func (s anchorSpec) expect(lines []string) (at, anchor int, ok bool) {
	idx, n := -1, 0
	for i, l := range lines {
		t, want := spaceless(l), spaceless(s.line)
		if t == want || s.prefix && strings.HasPrefix(t, want) {
			idx, n = i, n+1
		}
	}
	if n != 1 && s.orEnd {
		end := len(lines)
		for end > 0 && (strings.TrimSpace(lines[end-1]) == "" || strings.HasPrefix(strings.TrimSpace(lines[end-1]), "//# sourceMappingURL=")) {
			end--
		}
		return end, -1, true
	}
	if n != 1 {
		return 0, 0, false
	}
	if s.needNext && (idx+1 >= len(lines) || s.next != "" && spaceless(lines[idx+1]) != spaceless(s.next)) {
		return 0, 0, false
	}
	return idx + s.at, idx + s.anchor, true
}

func indentOf(s string) string { return s[:len(s)-len(strings.TrimLeft(s, " \t"))] }

// FuzzFindAnchors: the anchor finders of every block agree with a plain
// restatement of the anchors (found exactly when the anchor is there once,
// at the same line, in bounds); a miss wraps ErrAnchorsMissing; a feature
// goes in exactly when all its blocks are found, its names are in the file
// and the part it builds on is in; build succeeds exactly when the core
// fix goes in, putting each block right before its line, indented like
// its anchor; and strip(build(x)) == x.
func FuzzFindAnchors(f *testing.F) {
	_, orig := realClient(f)
	for _, s := range [][]byte{
		orig, nil, []byte("\n"),
		[]byte("function startConnection(a) {\n\t\tgeneration.onclose = () => {\n\tlet settling = connectGeneration(true);\n\t\tasync dispose() {\n\t\t\tdisposed = true;\nfunction callToolUncached(client, rawName, args, exec, opts) {\n  return 1;\n// attemptSettled generationDown\n"),
		[]byte("generation.onclose = () => {\nattemptSettled generationDown\n\n//# sourceMappingURL=index.js.map\n"),
		[]byte("generation.onclose=()=>{\r\nattemptSettled(generationDown)\r\n generation.onerror = x;\r\n"),
		[]byte("function callToolUncached(client, rawName, args, exec, opts) {"),
		[]byte("let settling = connectGeneration(true);\nfunction startConnection(\r\n\u00a0async dispose() {\r\n disposed = true;\r"),
		[]byte("async dispose() {\nasync dispose() {\ndisposed = true;"),
	} {
		f.Add(s)
	}
	if got := blockNames(Version); len(got) != len(anchorSpecs) {
		f.Fatalf("blocks %v, %d specs: restate the new anchor here", got, len(anchorSpecs))
	}
	f.Fuzz(func(t *testing.T, content []byte) {
		lines := strings.Split(string(content), "\n")
		found := checkAnchors(t, lines)
		out, p, err := buildPlan(content, Version)
		if hasMarkers(lines) {
			if err == nil {
				t.Fatal("built over existing markers")
			}
			return
		}
		fits := expectFeatures(lines, found)
		if (err == nil) != fits[FeatureCore] {
			t.Fatalf("build err %v, core fix fits: %v", err, fits[FeatureCore])
		}
		if err != nil {
			if !errors.Is(err, ErrAnchorsMissing) {
				t.Fatalf("build error wraps no sentinel: %v", err)
			}
			return
		}
		for name, want := range fits {
			if p.has(name) != want {
				t.Fatalf("%s in: %v, want %v (plan %v)", name, p.has(name), want, p.in)
			}
		}
		checkPlacement(t, lines, out, p)
	})
}

// expectFeatures restates which features fit: found blocks, names in the
// file, the part built on in, no own onerror for the core.
func expectFeatures(lines []string, found map[string]bool) map[string]bool {
	text := strings.Join(lines, "\n")
	has := func(words ...string) bool {
		for _, w := range words {
			if !regexp.MustCompile(`(^|[^\w$])` + regexp.QuoteMeta(w) + `($|[^\w$])`).MatchString(text) {
				return false
			}
		}
		return true
	}
	ownOnerror := false
	for _, l := range lines {
		ownOnerror = ownOnerror || strings.HasPrefix(spaceless(l), "generation.onerror=")
	}
	fits := map[string]bool{}
	fits[FeatureCore] = found["module"] && found["onerror"] && has("attemptSettled", "generationDown") && !ownOnerror
	fits[FeatureTrigger] = found["register"] && has("config", "ctx", "client", "connectedAt", "reconnectTimer", "label", "generationDown")
	fits[FeatureRetry] = found["track"] && found["retry"] && has("settling", "disposed", "connectedAt", "client", "reconnectTimer",
		"failedAttempts", "connectGeneration", "attemptSettled", "isCurrent", "generationDown", "label", "ctx")
	fits[FeatureDispose] = found["dispose"] && fits[FeatureTrigger]
	return fits
}

// checkPlacement: in the built file each block that went in has its end
// marker followed by the line the finder named (blocks due at one line in
// layout order), and its begin marker carries the anchor's indentation.
func checkPlacement(t *testing.T, lines []string, out []byte, p plan) {
	t.Helper()
	got := strings.Split(string(out), "\n")
	fs, _ := layout(Version)
	for _, f := range fs {
		if !p.has(f.name) {
			continue
		}
		for _, b := range f.blocks {
			checkBlock(t, lines, got, b)
		}
	}
	if back, _, ok := strip(out); !ok || !bytes.Equal(back, []byte(strings.Join(lines, "\n"))) {
		t.Fatal("strip(build(x)) != x")
	}
}

func checkBlock(t *testing.T, lines, got []string, b part) {
	t.Helper()
	at, anchor, _ := b.find(lines)
	begin, end := -1, -1
	for i, l := range got {
		switch strings.TrimSpace(l) {
		case beginMarker(b.name, Version):
			begin = i
		case endMarker(b.name, Version):
			end = i
		}
	}
	if begin < 0 || end <= begin {
		t.Fatalf("%s: markers at %d, %d", b.name, begin, end)
	}
	indent := ""
	if anchor >= 0 {
		indent = indentOf(lines[anchor])
	}
	if !strings.HasPrefix(got[begin], indent+"/*") {
		t.Fatalf("%s: begin marker %q, anchor indent %q", b.name, got[begin], indent)
	}
	next := end + 1
	for next < len(got) && strings.Contains(got[next], "mcp-watchdog:begin") { // the next block due at the same line
		for next < len(got) && !strings.Contains(got[next], "mcp-watchdog:end") {
			next++
		}
		next++
	}
	if at < len(lines) && (next >= len(got) || got[next] != lines[at]) {
		t.Fatalf("%s: the block is not right before line %d %q", b.name, at+1, lines[at])
	}
	if at == len(lines) && next != len(got) {
		t.Fatalf("%s: a block due at the end is followed by %q", b.name, got[next])
	}
}

// checkAnchors checks each block's finder against its reference spec on
// lines, and reports which were found.
func checkAnchors(t *testing.T, lines []string) map[string]bool {
	t.Helper()
	found := map[string]bool{}
	fs, _ := layout(Version)
	for _, f := range fs {
		for _, b := range f.blocks {
			spec, ok := specOf(b.name)
			if !ok {
				t.Fatalf("no spec for block %q", b.name)
			}
			at, anchor, err := b.find(lines)
			wantAt, wantAnchor, ok := spec.expect(lines)
			if ok != (err == nil) {
				t.Fatalf("%s: finder err %v, reference found=%v", b.name, err, ok)
			}
			if err != nil {
				if !errors.Is(err, ErrAnchorsMissing) {
					t.Fatalf("%s: error wraps no sentinel: %v", b.name, err)
				}
				continue
			}
			if at != wantAt || anchor != wantAnchor {
				t.Fatalf("%s: at %d anchor %d, want %d %d", b.name, at, anchor, wantAt, wantAnchor)
			}
			if anchor < -1 || anchor >= len(lines) || at < 0 || at > len(lines) {
				t.Fatalf("%s: at %d anchor %d out of %d lines", b.name, at, anchor, len(lines))
			}
			found[b.name] = true
		}
	}
	return found
}

func specOf(name string) (anchorSpec, bool) {
	for _, s := range anchorSpecs {
		if s.name == name {
			return s, true
		}
	}
	return anchorSpec{}, false
}
