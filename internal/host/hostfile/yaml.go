package hostfile

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// parseYAML reads YAML through yaml.v3 nodes. They carry a line and a
// column (counted in characters), not a byte range: a scalar's range is
// found from there, and a scalar whose bytes at that place do not spell
// its value (folded, multi-line, odd escapes) is read but not editable.
// Aliases are not followed; a tagged scalar (DSH's !!js) is not a string.
func parseYAML(data []byte) (*node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSyntax, err)
	}
	lines := LineStarts(data)
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return &node{kind: object}, nil // an empty file
	}
	return yamlNode(data, lines, doc.Content[0]), nil
}

func yamlNode(data []byte, lines []int, y *yaml.Node) *node {
	switch y.Kind {
	case yaml.MappingNode:
		n := &node{kind: object}
		for i := 0; i+1 < len(y.Content); i += 2 {
			n.keys = append(n.keys, y.Content[i].Value)
			n.elems = append(n.elems, yamlNode(data, lines, y.Content[i+1]))
		}
		return n
	case yaml.SequenceNode:
		n := &node{kind: list}
		for _, c := range y.Content {
			n.elems = append(n.elems, yamlNode(data, lines, c))
		}
		return n
	case yaml.ScalarNode:
		if y.Tag != "!!str" {
			return &node{kind: other, str: y.Value, start: -1}
		}
		start, end := scalarRange(data, lines, y)
		n := textNode(y.Value, start, end)
		n.line = y.Line // known even where its bytes cannot be rewritten
		return n
	}
	return &node{kind: other, start: -1}
}

// LineStarts holds the byte offset of each line's first byte.
func LineStarts(data []byte) []int {
	starts := []int{0}
	for i, b := range data {
		if b == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// scalarRange finds the bytes of a one-line scalar; start is -1 when they
// cannot be found or do not read back as its value.
func scalarRange(data []byte, lines []int, y *yaml.Node) (start, end int) {
	if y.Line < 1 || y.Line > len(lines) || y.Column < 1 {
		return -1, -1
	}
	off := lines[y.Line-1]
	for range y.Column - 1 {
		if off >= len(data) || data[off] == '\n' {
			return -1, -1
		}
		_, size := utf8.DecodeRune(data[off:])
		off += size
	}
	rest := data[off:]
	if i := bytes.IndexByte(rest, '\n'); i >= 0 {
		rest = rest[:i]
	}
	var n int
	switch y.Style {
	case 0:
		if !bytes.HasPrefix(rest, []byte(y.Value)) {
			return -1, -1
		}
		n = len(y.Value)
	case yaml.SingleQuotedStyle:
		n = quotedEnd(rest, '\'')
	case yaml.DoubleQuotedStyle:
		n = quotedEnd(rest, '"')
	default: // literal and folded blocks
		return -1, -1
	}
	if n <= 0 || !readsAs(rest[:n], y.Value) {
		return -1, -1
	}
	return off, off + n
}

// quotedEnd returns the length of the quoted scalar at the start of b, its
// closing quote included, or 0 when it does not close on this line.
func quotedEnd(b []byte, q byte) int {
	for i := 1; i < len(b); i++ {
		switch {
		case q == '\'' && b[i] == '\'' && i+1 < len(b) && b[i+1] == '\'':
			i++ // '' is a quote inside
		case q == '"' && b[i] == '\\':
			i++
		case b[i] == q:
			return i + 1
		}
	}
	return 0
}

// readsAs reports whether lit, alone as a YAML document, is the string want.
func readsAs(lit []byte, want string) bool {
	var got string
	if err := yaml.Unmarshal(lit, &got); err != nil {
		return false
	}
	return got == want && !strings.ContainsAny(want, "\n\r")
}
