package config

import (
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/mcpwatchdog/watchdog/internal/host/hostfile"
	"github.com/pelletier/go-toml/v2/unstable"
)

// keyIndex knows, for every key path written in a document, the line of
// its key and the kind of its value. Paths look like the keys in error
// messages: "host.port", "server[1].url", "server[0].headers.Authorization",
// "host.restart[2]". A nil *keyIndex knows nothing.
type keyIndex struct {
	entries map[string]indexEntry
	byLine  map[int][]string // paths whose key is on a line, for find
}

type indexEntry struct {
	parts   []string // the key's parts without array indices: server, url
	line    int
	kind    unstable.Kind // kind of the value; Table or ArrayTable for [headers]
	element bool          // an element of an array value, like host.restart[2]
}

// arrayOfTables reports whether the document wrote path as [[path]] tables.
func (ix *keyIndex) arrayOfTables(path string) bool {
	if ix == nil {
		return false
	}
	e, ok := ix.entries[path]
	return ok && e.kind == unstable.ArrayTable
}

// buildIndex walks data with go-toml's parser. On a syntax error it stops
// there: the index then covers what came before, which is all an error
// about the earlier part can need.
func buildIndex(data []byte) *keyIndex {
	w := indexWalker{
		ix:     &keyIndex{entries: map[string]indexEntry{}, byLine: map[int][]string{}},
		lines:  hostfile.LineStarts(data),
		counts: map[string]int{},
	}
	var p unstable.Parser
	p.Reset(data)
	for p.NextExpression() {
		w.expression(p.Expression())
	}
	return w.ix
}

// maxIndexDepth bounds how deep nested arrays and inline tables are indexed:
// the schema needs two levels, and indexing thousands would cost the square
// of the depth.
const maxIndexDepth = 4

type indexWalker struct {
	ix     *keyIndex
	lines  []int          // offsets where lines start
	counts map[string]int // array-of-tables path → tables seen so far
	table  string         // current table's path
	parts  []string       // current table's parts
}

func (w *indexWalker) expression(e *unstable.Node) {
	switch e.Kind {
	case unstable.Table, unstable.ArrayTable:
		keys, first := keyNodes(e)
		path, parts := w.resolve(keys, e.Kind == unstable.ArrayTable)
		w.table, w.parts = path, parts
		line := w.lineOf(first)
		if e.Kind == unstable.ArrayTable { // "server" itself: its first table
			w.add(path[:strings.LastIndexByte(path, '[')], indexEntry{parts: parts, line: line, kind: e.Kind})
		}
		w.add(path, indexEntry{parts: parts, line: line, kind: e.Kind})
	case unstable.KeyValue:
		w.keyValue(w.table, w.parts, e, 0)
	}
}

// resolve turns a table header into a path, pointing each array of tables
// at its latest element, as TOML does, and numbering a new [[table]].
func (w *indexWalker) resolve(keys []string, newElement bool) (string, []string) {
	path := ""
	for i, k := range keys {
		path = joinPath(path, k)
		n, isArray := w.counts[path]
		if newElement && i == len(keys)-1 {
			w.counts[path] = n + 1
			path += "[" + strconv.Itoa(n) + "]"
		} else if isArray && n > 0 {
			path += "[" + strconv.Itoa(n-1) + "]"
		}
	}
	return path, slices.Clone(keys)
}

func (w *indexWalker) keyValue(table string, tableParts []string, kv *unstable.Node, depth int) {
	keys, first := keyNodes(kv)
	line := w.lineOf(first)
	v := kv.Value()
	path, parts := table, slices.Clone(tableParts)
	for i, k := range keys {
		path = joinPath(path, k)
		parts = append(parts, k)
		kind := unstable.Table // dotted keys make tables
		if i == len(keys)-1 {
			kind = v.Kind
		}
		w.add(path, indexEntry{parts: parts, line: line, kind: kind})
	}
	w.value(path, parts, line, v, depth+1)
}

// value indexes what is inside an inline table or an array.
func (w *indexWalker) value(path string, parts []string, line int, v *unstable.Node, depth int) {
	if depth > maxIndexDepth {
		return
	}
	switch v.Kind {
	case unstable.InlineTable:
		it := v.Children()
		for it.Next() {
			if it.Node().Kind == unstable.KeyValue {
				w.keyValue(path, parts, it.Node(), depth)
			}
		}
	case unstable.Array:
		it := v.Children()
		for i := 0; it.Next(); i++ {
			el := it.Node()
			elLine := line
			if el.Raw.Length > 0 { // arrays and some values carry no range
				elLine = w.lineOf(el)
			}
			elPath := path + "[" + strconv.Itoa(i) + "]"
			w.add(elPath, indexEntry{parts: parts, line: elLine, kind: el.Kind, element: true})
			w.value(elPath, parts, elLine, el, depth+1)
		}
	}
}

// add records the first place a path appears; later ones are redefinitions
// that the decoder reports itself.
func (w *indexWalker) add(path string, e indexEntry) {
	if _, ok := w.ix.entries[path]; ok {
		return
	}
	e.parts = slices.Clone(e.parts)
	w.ix.entries[path] = e
	w.ix.byLine[e.line] = append(w.ix.byLine[e.line], path)
}

func (w *indexWalker) lineOf(n *unstable.Node) int {
	if n == nil {
		return 0
	}
	off := int(n.Raw.Offset)
	return sort.Search(len(w.lines), func(i int) bool { return w.lines[i] > off })
}

// keyNodes returns the parts of a node's key and the node of the first.
func keyNodes(n *unstable.Node) ([]string, *unstable.Node) {
	var keys []string
	var first *unstable.Node
	it := n.Key()
	for it.Next() {
		if first == nil {
			first = it.Node()
		}
		keys = append(keys, string(it.Node().Data))
	}
	return keys, first
}

var bareKey = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// quoteKey writes a key part as TOML would need it written.
func quoteKey(k string) string {
	if bareKey.MatchString(k) {
		return k
	}
	return strconv.Quote(k)
}

func joinPath(path, key string) string {
	if path == "" {
		return quoteKey(key)
	}
	return path + "." + quoteKey(key)
}

// line of a path, or of the nearest enclosing key the file wrote; 0 when
// none of them is in the file (the value came from the defaults).
func (ix *keyIndex) line(path string) int {
	if ix == nil {
		return 0
	}
	for path != "" {
		if e, ok := ix.entries[path]; ok {
			return e.line
		}
		cut := max(strings.LastIndexByte(path, '.'), strings.LastIndexByte(path, '['))
		if cut < 0 {
			return 0
		}
		path = path[:cut]
	}
	return 0
}

// find maps a key the decoder reports (without array indices, and for
// inline tables without the enclosing keys) at a line to the indexed path.
func (ix *keyIndex) find(line int, key []string) (string, indexEntry, bool) {
	if ix == nil || len(key) == 0 {
		return "", indexEntry{}, false
	}
	var best string
	var bestEntry indexEntry
	found, exact := false, false
	for _, path := range ix.byLine[line] {
		e := ix.entries[path]
		if e.element || len(e.parts) < len(key) {
			continue
		}
		if !slices.Equal(e.parts[len(e.parts)-len(key):], key) {
			continue
		}
		isExact := len(e.parts) == len(key)
		// Prefer exact matches, then the shortest path, then by name, so
		// that the answer does not depend on map order.
		if !found || (isExact && !exact) || (isExact == exact && less(path, best)) {
			best, bestEntry, found, exact = path, e, true, isExact
		}
	}
	return best, bestEntry, found
}

func less(a, b string) bool {
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return a < b
}
