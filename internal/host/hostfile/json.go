package hostfile

import (
	"fmt"

	"github.com/tailscale/hujson"
)

// parseJSON reads JSON, with the comments and trailing commas VS Code
// allows. A string's range comes from hujson's offsets.
func parseJSON(data []byte) (*node, error) {
	v, err := hujson.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSyntax, err)
	}
	return jsonNode(&v), nil
}

func jsonNode(v *hujson.Value) *node {
	switch t := v.Value.(type) {
	case *hujson.Object:
		n := &node{kind: object}
		for i := range t.Members {
			m := &t.Members[i]
			name, _ := m.Name.Value.(hujson.Literal)
			n.keys = append(n.keys, name.String())
			n.elems = append(n.elems, jsonNode(&m.Value))
		}
		return n
	case *hujson.Array:
		n := &node{kind: list}
		for i := range t.Elements {
			n.elems = append(n.elems, jsonNode(&t.Elements[i]))
		}
		return n
	case hujson.Literal:
		if t.Kind() == '"' {
			return textNode(t.String(), v.StartOffset, v.EndOffset)
		}
		return &node{kind: other, str: string(t), start: -1}
	}
	return &node{kind: other, start: -1}
}
