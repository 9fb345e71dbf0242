package clientpatch

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
)

// A part is one inserted block: where it goes and what it holds.
type part struct {
	name string
	// find returns the index of the line the block goes before and of
	// the anchor line (whose indentation the block takes; -1: top level,
	// no indentation), or an error naming the anchor that is missing or
	// not unique.
	find func(lines []string) (at, anchor int, err error)
}

// squeeze drops every space, so an anchor still matches a reformatted
// line ("function callToolUncached (client, …)").
func squeeze(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
}

func equal(a, b string) bool { return a == b }

func hasPrefix(s, prefix string) bool { return strings.HasPrefix(s, prefix) }

// onlyLine returns the index of the one line that matches want, spaces
// ignored on both sides.
func onlyLine(lines []string, want string, match func(s, want string) bool) (int, error) {
	at, n, w := -1, 0, squeeze(want)
	for i, l := range lines {
		if match(squeeze(l), w) {
			at, n = i, n+1
		}
	}
	if n != 1 {
		return -1, fmt.Errorf("%w: %q found %d times, want once", ErrAnchorsMissing, want, n)
	}
	return at, nil
}

func beforeLine(want string, match func(s, want string) bool) func([]string) (int, int, error) {
	return func(lines []string) (int, int, error) {
		i, err := onlyLine(lines, want, match)
		return i, i, err
	}
}

func afterLine(want string) func([]string) (int, int, error) {
	return func(lines []string) (int, int, error) {
		i, err := onlyLine(lines, want, equal)
		return i + 1, i, err
	}
}

// intoBody: the block becomes the first statement of the function whose
// header is want (the block uses its parameter names), indented like the
// body's first line.
func intoBody(want string) func([]string) (int, int, error) {
	return func(lines []string) (int, int, error) {
		i, err := onlyLine(lines, want, equal)
		if err != nil {
			return -1, -1, err
		}
		if i+1 >= len(lines) {
			return -1, -1, fmt.Errorf("%w: %q has no body", ErrAnchorsMissing, want)
		}
		return i + 1, i + 1, nil
	}
}

// afterDisposeFlag: `disposed = true;` as the first statement of dispose().
func afterDisposeFlag(lines []string) (int, int, error) {
	i, err := onlyLine(lines, anchorDispose, equal)
	if err != nil {
		return -1, -1, err
	}
	if i+1 >= len(lines) || squeeze(lines[i+1]) != squeeze(anchorDisposed) {
		return -1, -1, fmt.Errorf("%w: %q does not begin with %q", ErrAnchorsMissing, anchorDispose, anchorDisposed)
	}
	return i + 2, i + 1, nil
}

// helpersPlace puts the helpers before startConnection where a build has
// it (so files patched before stay byte-identical), else at the end of
// the file: always the outermost scope, which every function of the file
// can see. Function declarations are hoisted, and the constants are set
// once the module has run, before any connection can fail.
func helpersPlace(lines []string) (int, int, error) {
	if i, err := onlyLine(lines, anchorStart, hasPrefix); err == nil {
		return i, i, nil
	}
	end := len(lines)
	for end > 0 {
		l := strings.TrimSpace(lines[end-1])
		if l != "" && !strings.HasPrefix(l, "//# sourceMappingURL=") {
			break
		}
		end--
	}
	return end, -1, nil
}

var wordRE = regexp.MustCompile(`[\w$]+`)

// wordsOf is the set of identifier-like words in lines.
func wordsOf(lines []string) map[string]bool {
	words := map[string]bool{}
	for _, l := range lines {
		for _, w := range wordRE.FindAllString(l, -1) {
			words[w] = true
		}
	}
	return words
}

// checkNeeds: every name f's blocks use is in the file, and no line f
// forbids is.
func checkNeeds(f feature, lines []string, words map[string]bool) error {
	for _, n := range f.needs {
		if !words[n] {
			return fmt.Errorf("%w: the name %q is not in the file", ErrAnchorsMissing, n)
		}
	}
	for _, bad := range f.forbids {
		for _, l := range lines {
			if strings.HasPrefix(squeeze(l), squeeze(bad)) {
				return fmt.Errorf("%w: the file has its own %q, which the patch would replace", ErrAnchorsMissing, strings.TrimSpace(l))
			}
		}
	}
	return nil
}
