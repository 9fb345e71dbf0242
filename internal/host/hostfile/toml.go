package hostfile

import (
	"errors"
	"fmt"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// parseTOML reads TOML with go-toml's unstable parser, whose nodes carry
// their byte ranges. Tables ([a.b]), array tables ([[a]]), dotted keys and
// inline tables all land in the same tree.
func parseTOML(data []byte) (*node, error) {
	if err := checkTOML(data); err != nil {
		return nil, err
	}
	root := &node{kind: object}
	cur := root
	var p unstable.Parser
	p.Reset(data)
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table:
			cur = walk(root, keyOf(e.Key()))
		case unstable.ArrayTable:
			cur = appendTable(root, keyOf(e.Key()))
		case unstable.KeyValue:
			setKeyValue(cur, e)
		}
	}
	if err := p.Error(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSyntax, err)
	}
	return root, nil
}

// checkTOML fails on what TOML forbids, at its line: the unstable parser
// reads one expression at a time and lets a table or key be defined twice
// (the second silently merged), which Codex's parser refuses.
func checkTOML(data []byte) error {
	var v map[string]any
	err := toml.Unmarshal(data, &v)
	if de := (*toml.DecodeError)(nil); errors.As(err, &de) {
		row, col := de.Position()
		return fmt.Errorf("%w: line %d, column %d: %w", ErrSyntax, row, col, err)
	}
	if err != nil {
		return fmt.Errorf("%w: %w", ErrSyntax, err)
	}
	return nil
}

func keyOf(it unstable.Iterator) []string {
	var parts []string
	for it.Next() {
		parts = append(parts, string(it.Node().Data))
	}
	return parts
}

// walk returns the object at path under n, creating what is missing. A
// path through an array of tables goes into its last element, as TOML has it.
func walk(n *node, path []string) *node {
	for _, k := range path {
		n = n.child(k)
		if n.kind == list && len(n.elems) > 0 {
			n = n.elems[len(n.elems)-1]
		}
	}
	return n
}

func appendTable(root *node, path []string) *node {
	parent := walk(root, path[:len(path)-1])
	arr := parent.get(path[len(path)-1])
	if arr == nil || arr.kind != list {
		arr = &node{kind: list}
		parent.set(path[len(path)-1], arr)
	}
	t := &node{kind: object}
	arr.elems = append(arr.elems, t)
	return t
}

func setKeyValue(table *node, kv *unstable.Node) {
	key := keyOf(kv.Key())
	walk(table, key[:len(key)-1]).set(key[len(key)-1], tomlValue(kv.Value()))
}

func tomlValue(v *unstable.Node) *node {
	switch v.Kind {
	case unstable.String:
		start := int(v.Raw.Offset)
		return textNode(string(v.Data), start, start+int(v.Raw.Length))
	case unstable.Array:
		n := &node{kind: list}
		for it := v.Children(); it.Next(); {
			n.elems = append(n.elems, tomlValue(it.Node()))
		}
		return n
	case unstable.InlineTable:
		n := &node{kind: object}
		for it := v.Children(); it.Next(); {
			setKeyValue(n, it.Node())
		}
		return n
	}
	return &node{kind: other, str: string(v.Data), start: -1}
}
