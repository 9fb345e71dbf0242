package deptest_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// sharedNamesAllowed lists "file: Name" pairs where a product file calls
// two of the module's packages' functions of one name. It starts empty:
// a name that means two things to the reader of one file is renamed.
var sharedNamesAllowed = map[string]bool{}

// TestOneNamePerThingInAFile: a product file never calls functions of the
// same name from two of the module's packages (classify.Classify beside
// mcphttp.Classify sent a reader to the wrong package). New, Go's name
// for a package's constructor, is what every package calls its own.
func TestOneNamePerThingInAFile(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	mod := modulePath(t, root)
	funcs := exportedFuncs(t, root)
	var clashes []string
	walkGoFiles(t, root, func(rel string) bool { return strings.HasPrefix(rel, "internal/testbed") }, func(rel string, src []byte) error {
		if strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), rel, src, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for name, pkgs := range calledFuncs(f, mod, funcs) {
			if len(pkgs) > 1 && name != "New" && !sharedNamesAllowed[rel+": "+name] {
				sort.Strings(pkgs)
				clashes = append(clashes, rel+": "+name+" from "+strings.Join(pkgs, " and "))
			}
		}
		return nil
	})
	for _, c := range clashes {
		t.Errorf("%s: one name, two things in one file; rename one (or, with a reason, allow it in sharedNamesAllowed)", c)
	}
}

// exportedFuncs maps each of the module's package folders (slash paths
// relative to root) to the exported top-level functions it declares.
func exportedFuncs(t *testing.T, root string) map[string]map[string]bool {
	t.Helper()
	out := map[string]map[string]bool{}
	walkGoFiles(t, root, func(string) bool { return false }, func(rel string, src []byte) error {
		if strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), rel, src, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		dir := path.Dir(rel)
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.IsExported() {
				if out[dir] == nil {
					out[dir] = map[string]bool{}
				}
				out[dir][fd.Name.Name] = true
			}
		}
		return nil
	})
	return out
}

// calledFuncs maps each function name f uses as pkg.Name, for a module
// package's function, to the packages it takes it from.
func calledFuncs(f *ast.File, mod string, funcs map[string]map[string]bool) map[string][]string {
	imports := map[string]string{} // local name → folder
	for _, im := range f.Imports {
		ip, _ := strconv.Unquote(im.Path.Value)
		dir, ok := strings.CutPrefix(ip, mod+"/")
		if !ok {
			continue
		}
		name := path.Base(ip)
		if im.Name != nil {
			name = im.Name.Name
		}
		imports[name] = dir
	}
	seen := map[string]map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		se, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		id, ok := se.X.(*ast.Ident)
		if !ok {
			return true
		}
		if dir, imported := imports[id.Name]; imported && funcs[dir][se.Sel.Name] {
			if seen[se.Sel.Name] == nil {
				seen[se.Sel.Name] = map[string]bool{}
			}
			seen[se.Sel.Name][dir] = true
		}
		return true
	})
	out := map[string][]string{}
	for name, dirs := range seen {
		for d := range dirs {
			out[name] = append(out[name], d)
		}
	}
	return out
}

// modulePath is the module line of root's go.mod.
func modulePath(t *testing.T, root string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for l := range strings.SplitSeq(string(b), "\n") {
		if m, ok := strings.CutPrefix(l, "module "); ok {
			return strings.TrimSpace(m)
		}
	}
	t.Fatal("go.mod has no module line")
	return ""
}

// TestOneNamePerThingCanFail: a file calling classify.Classify and
// mcphttp.Classify (as the daemon once did) is found; types and one
// package's function are not.
func TestOneNamePerThingCanFail(t *testing.T) {
	t.Parallel()
	src := `package p
import (
	"example.com/w/monitor/classify"
	"example.com/w/internal/mcphttp"
	other "example.com/w/internal/other"
)
func f() {
	classify.Classify(nil)
	mcphttp.Classify(nil, nil)
	var _ classify.Options
	var _ mcphttp.Options
	other.Only()
}`
	f, err := parser.ParseFile(token.NewFileSet(), "p.go", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	funcs := map[string]map[string]bool{"monitor/classify": {"Classify": true}, "internal/mcphttp": {"Classify": true},
		"internal/other": {"Only": true}}
	got := calledFuncs(f, "example.com/w", funcs)
	if len(got) != 2 || len(got["Classify"]) != 2 || len(got["Only"]) != 1 || got["Options"] != nil {
		t.Fatalf("calledFuncs = %v; want Classify from two packages, Only from one, no Options", got)
	}
}
