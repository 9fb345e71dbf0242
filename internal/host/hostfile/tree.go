package hostfile

import "strings"

// kind is what a tree node holds.
type kind uint8

const (
	other kind = iota // a number, bool, null (str: its literal), or a string that cannot be edited in place
	text              // a string
	object
	list
)

// node is one value of a parsed file. A text node keeps the byte range of
// its literal (quotes included) when it can be rewritten in place.
type node struct {
	kind  kind
	str   string
	start int // literal's byte range in the file; start < 0: not editable
	end   int
	line  int      // its line, where the parser says it (YAML); 0: from start
	keys  []string // object member names, in file order
	elems []*node  // object member values or list elements
}

// get returns the member of an object named key, or nil.
func (n *node) get(key string) *node {
	if n == nil || n.kind != object {
		return nil
	}
	for i, k := range n.keys {
		if k == key {
			return n.elems[i]
		}
	}
	return nil
}

// at returns the member at a dotted key path ("transport.url"), or nil.
func (n *node) at(dotted string) *node {
	for _, k := range strings.Split(dotted, ".") {
		n = n.get(k)
	}
	return n
}

// text returns the string under key, "" when there is none.
func (n *node) text(key string) string {
	if v := n.get(key); v != nil && v.kind == text {
		return v.str
	}
	return ""
}

// child returns the object member named key, creating an empty object
// there when there is none (TOML tables are declared piecewise).
func (n *node) child(key string) *node {
	if v := n.get(key); v != nil {
		return v
	}
	v := &node{kind: object}
	n.keys = append(n.keys, key)
	n.elems = append(n.elems, v)
	return v
}

// set adds or replaces the member key of an object.
func (n *node) set(key string, v *node) {
	for i, k := range n.keys {
		if k == key {
			n.elems[i] = v
			return
		}
	}
	n.keys = append(n.keys, key)
	n.elems = append(n.elems, v)
}

func textNode(s string, start, end int) *node {
	return &node{kind: text, str: s, start: start, end: end}
}

// shift moves every byte range in the tree n bytes on.
func (n *node) shift(by int) {
	if n.start >= 0 && n.kind == text {
		n.start += by
		n.end += by
	}
	for _, e := range n.elems {
		e.shift(by)
	}
}
