package deptest

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"regexp"
)

// drillName is what a test hook is called: a fault, a skew, a debug
// switch. Such a field belongs to the drill types of a build with the
// watchdogdebug tag, never to a type the shipped binary carries.
var drillName = regexp.MustCompile(`^(fault|skew|debug|hook)|(^|[a-z0-9_])(Fault|Skew|Debug|Hook)`)

// CheckDrills returns the struct fields of the Go source src (a file of the
// release build, test files aside) named like a test hook, and each type
// named drill or drills that is not empty: in a release build the drills an
// option type embeds are empty (their fields live in *_debug.go files
// built with the watchdogdebug tag).
func CheckDrills(name string, src []byte) ([]string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		ts, ok := n.(*ast.TypeSpec)
		if !ok {
			return true
		}
		st, ok := ts.Type.(*ast.StructType)
		if !ok {
			return true
		}
		if (ts.Name.Name == "drill" || ts.Name.Name == "drills") && len(st.Fields.List) > 0 {
			out = append(out, fmt.Sprintf("%s: type %s has fields in the release build; move them to a file built with the watchdogdebug tag",
				fset.Position(ts.Pos()), ts.Name.Name))
		}
		for _, fl := range st.Fields.List {
			for _, id := range fl.Names {
				if drillName.MatchString(id.Name) {
					out = append(out, fmt.Sprintf("%s: %s.%s looks like a test hook in a shipped type; put it in the type's drill, built with the watchdogdebug tag only",
						fset.Position(id.Pos()), ts.Name.Name, id.Name))
				}
			}
		}
		return true
	})
	return out, nil
}
