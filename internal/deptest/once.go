package deptest

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"slices"
	"strconv"
)

// MinSaidOnce is the length from which a string literal is a sentence of
// its own: the words of a step (a heal's sighting, an answer's reason).
const MinSaidOnce = 40

// CheckSaidOnce returns each string literal of at least MinSaidOnce bytes
// that two of the Go files (name → source) carry: a step written twice
// says the same thing twice, down to its words. It is how the proxy's two
// transports are kept to one heal flow.
func CheckSaidOnce(files map[string][]byte) ([]string, error) {
	where := map[string][]string{}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		f, err := parser.ParseFile(token.NewFileSet(), name, files[name], parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		seen := map[string]bool{}
		ast.Inspect(f, func(n ast.Node) bool {
			if _, ok := n.(*ast.ImportSpec); ok {
				return false // an import path is no sentence
			}
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err == nil && len(s) >= MinSaidOnce && !seen[s] {
				seen[s] = true
				where[s] = append(where[s], name)
			}
			return true
		})
	}
	var out []string
	for _, s := range slices.Sorted(maps.Keys(where)) {
		if files := where[s]; len(files) > 1 {
			out = append(out, fmt.Sprintf("%q is said in %v: one step written twice; say it in one place the others call", s, files))
		}
	}
	return out, nil
}
