package deptest

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
)

// MaxDaemonFields bounds the daemon's own struct (internal/daemon): past
// it the loop becomes the warehouse, and what grew there belongs in a
// part of its own (a group of fields with one job, or a package).
const MaxDaemonFields = 19

// StructFields counts the fields of the struct type named typ in the Go
// source src (an embedded field counts once); -1 when there is none.
func StructFields(name string, src []byte, typ string) (int, error) {
	f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.SkipObjectResolution)
	if err != nil {
		return -1, err
	}
	n := -1
	ast.Inspect(f, func(node ast.Node) bool {
		ts, ok := node.(*ast.TypeSpec)
		if !ok || ts.Name.Name != typ {
			return true
		}
		if st, ok := ts.Type.(*ast.StructType); ok {
			n = 0
			for _, fl := range st.Fields.List {
				n += max(1, len(fl.Names))
			}
		}
		return false
	})
	return n, nil
}

// CheckDaemonFields fails when the struct typ of src has more than
// MaxDaemonFields fields, naming what to do.
func CheckDaemonFields(name string, src []byte, typ string) error {
	n, err := StructFields(name, src, typ)
	switch {
	case err != nil:
		return err
	case n < 0:
		return fmt.Errorf("%s: no struct type %s (moved? point the check at it)", name, typ)
	case n > MaxDaemonFields:
		return fmt.Errorf("%s: type %s has %d fields, over the %d it may have; group fields that share a job into a part of their own",
			name, typ, n, MaxDaemonFields)
	}
	return nil
}
