// Package variants derives builds of dsh-mcp-client that nobody hand-fitted
// the patch to, from the real 0.1.0-rc.8 lib/index.js: the kinds of change a
// new release makes (a function renamed, a method reshaped, comments and
// formatting changed). The client-patch tests check, for each, what
// `patch status` names, that `apply --force` gives the core fix where its
// anchors are, that the real client then recovers, and that revert gives
// the variant back byte for byte.
package variants

import (
	"fmt"
	"regexp"
	"strings"
)

// Variant is one derived build and what the patch should make of it.
type Variant struct {
	Name string
	// Derive turns the real rc.8 file into the variant.
	Derive func(orig []byte) []byte
	// Core: the core fix's anchors are there, so apply --force succeeds;
	// without them it refuses and changes nothing.
	Core bool
	// Missing are the features that cannot go in, in the patch's order
	// ("trigger, dispose"); "" none.
	Missing string
}

// All are the variants, each a change a release could plausibly make.
func All() []Variant {
	return []Variant{
		{Name: "retry function renamed", Derive: renameWord("callToolUncached", "requestToolCall"), Core: true, Missing: "retry"},
		{Name: "startConnection renamed", Derive: renameWord("startConnection", "superviseConnection"), Core: true},
		{Name: "dispose reshaped", Derive: reshapeDispose, Core: true, Missing: "dispose"},
		{Name: "comments and whitespace changed", Derive: recomment, Core: true},
		{Name: "reformatted", Derive: reformat, Core: true},
		{Name: "everything at once", Derive: chain(renameWord("callToolUncached", "requestToolCall"),
			renameWord("startConnection", "superviseConnection"), reshapeDispose, recomment, reformat), Core: true, Missing: "retry, dispose"},
		{Name: "onclose as a function", Derive: replace("generation.onclose = () => {", "generation.onclose = function() {")},
		{Name: "generationDown renamed", Derive: renameWord("generationDown", "takeDown")},
	}
}

func chain(fs ...func([]byte) []byte) func([]byte) []byte {
	return func(b []byte) []byte {
		for _, f := range fs {
			b = f(b)
		}
		return b
	}
}

// renameWord renames an identifier everywhere it occurs as a whole word.
func renameWord(old, repl string) func([]byte) []byte {
	re := regexp.MustCompile(`\b` + regexp.QuoteMeta(old) + `\b`)
	return func(b []byte) []byte { return re.ReplaceAll(b, []byte(repl)) }
}

// replace swaps one exact text for another; it panics when the text is
// not in the file, so a changed base cannot make a variant silently equal
// to it.
func replace(old, repl string) func([]byte) []byte {
	return func(b []byte) []byte {
		s := string(b)
		if !strings.Contains(s, old) {
			panic(fmt.Sprintf("variants: %q is not in the file", old))
		}
		return []byte(strings.ReplaceAll(s, old, repl))
	}
}

// reshapeDispose makes dispose an arrow-function property that checks its
// flag before setting it, as a refactor might.
func reshapeDispose(b []byte) []byte {
	return replace("async dispose() {\n\t\t\tdisposed = true;",
		"dispose: async () => {\n\t\t\tif (disposed) return;\n\t\t\tdisposed = true;")(b)
}

// recomment drops every comment line, adds comments of its own, and
// indents with two spaces per tab with some trailing spaces.
func recomment(b []byte) []byte {
	var out []string
	inDoc := false
	for i, l := range strings.Split(string(b), "\n") {
		t := strings.TrimSpace(l)
		switch {
		case inDoc:
			inDoc = !strings.Contains(t, "*/")
			continue
		case strings.HasPrefix(t, "/*") && !strings.Contains(t, "*/"):
			inDoc = true
			continue
		case strings.HasPrefix(t, "//") || strings.HasPrefix(t, "/*") && strings.HasSuffix(t, "*/"):
			continue
		}
		indent := len(l) - len(strings.TrimLeft(l, "\t"))
		l = strings.Repeat("  ", indent) + l[indent:]
		if i%7 == 0 && t != "" {
			l += "  "
		}
		if strings.HasPrefix(t, "function ") {
			out = append(out, "", "// "+strings.TrimSuffix(t, "{"))
		}
		out = append(out, l)
	}
	return []byte(strings.Join(out, "\n"))
}

var funcParen = regexp.MustCompile(`\bfunction (\w+)\(`)

// reformat indents with four spaces, puts a space before a function's
// parameter list, and ends lines with CRLF.
func reformat(b []byte) []byte {
	lines := strings.Split(string(b), "\n")
	for i, l := range lines {
		indent := len(l) - len(strings.TrimLeft(l, "\t"))
		l = strings.Repeat("    ", indent) + l[indent:]
		lines[i] = funcParen.ReplaceAllString(l, "function $1 (")
	}
	return []byte(strings.Join(lines, "\r\n"))
}
