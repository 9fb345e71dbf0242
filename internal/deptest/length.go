package deptest

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
)

// The size limits of the house: past them a reader loses the thread.
const (
	// MaxFileLines bounds every .go file, tests included.
	MaxFileLines = 600
	// MaxFuncLines bounds a function from its func line to its closing
	// brace, unless the comment directly above it has a line starting
	// with "Long:" and a reason (a table of cases, one case per shape).
	MaxFuncLines = 60
	// MaxCommandLines bounds the non-test .go files of cmd/watchdog
	// together: the command parses flags and wires packages; logic that
	// grows there (rendering, shaping, deciding) belongs to a package
	// whose job it is, where it is tested on its own.
	MaxCommandLines = 1300
	// MaxDaemonFiles and MaxDaemonLines bound internal/daemon's non-test
	// files: it is the loop that wires sources, models and faces, not the
	// warehouse; a concern that grows there (the proxy process, a wire, a
	// file format) moves to a package of its own.
	MaxDaemonFiles = 34
	MaxDaemonLines = 4999
	// MaxReadmeLines bounds README.md, the newcomer's page: what the
	// watchdog is and why, the demo, install, the test command, the first
	// commands and links to docs/, where everything longer lives.
	MaxReadmeLines = 200
)

// Offence is a file or a function over its limit.
type Offence struct {
	File  string // the name given to CheckSource
	Line  int    // where the file or the function begins
	Func  string // the function ("Recv.Name", "func literal"); "" for the file
	Lines int
}

func (o Offence) String() string {
	if o.Func == "" {
		return fmt.Sprintf("%s: %d lines, over the %d a file may have; split it", o.File, o.Lines, MaxFileLines)
	}
	return fmt.Sprintf("%s:%d: %s is %d lines, over %d; split it, or give the reason in a line starting with %q in the comment directly above it",
		o.File, o.Line, o.Func, o.Lines, MaxFuncLines, "Long:")
}

// CheckSource returns what in the Go source src (named name in the
// offences) is over a limit. Generated files are left out: nobody edits
// them by hand. Function literals count as functions of their own, their
// reason in a comment ending on the line above the literal's first.
func CheckSource(name string, src []byte) ([]Offence, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	if ast.IsGenerated(f) {
		return nil, nil
	}
	var out []Offence
	if n := countLines(src); n > MaxFileLines {
		out = append(out, Offence{File: name, Line: 1, Lines: n})
	}
	above := map[int]*ast.CommentGroup{} // comment groups by their last line
	for _, cg := range f.Comments {
		above[fset.Position(cg.End()).Line] = cg
	}
	ast.Inspect(f, func(n ast.Node) bool {
		var what string
		var doc *ast.CommentGroup
		switch fn := n.(type) {
		case *ast.FuncDecl:
			what, doc = funcName(fn), fn.Doc
		case *ast.FuncLit:
			what, doc = "func literal", above[fset.Position(fn.Pos()).Line-1]
		default:
			return true
		}
		start, end := fset.Position(n.Pos()).Line, fset.Position(n.End()).Line
		if lines := end - start + 1; lines > MaxFuncLines && !hasReason(doc) {
			out = append(out, Offence{File: name, Line: start, Func: what, Lines: lines})
		}
		return true
	})
	return out, nil
}

// CheckReadme returns an error naming the README src (named name), its
// length and what to do when it is over MaxReadmeLines, and nil otherwise.
func CheckReadme(name string, src []byte) error {
	if n := countLines(src); n > MaxReadmeLines {
		return fmt.Errorf("%s: %d lines, over the %d the README may have; move long sections to docs/ and link them from it",
			name, n, MaxReadmeLines)
	}
	return nil
}

// countLines counts lines as wc -l does, plus a last line without newline.
func countLines(src []byte) int {
	n := bytes.Count(src, []byte("\n"))
	if len(src) > 0 && src[len(src)-1] != '\n' {
		n++
	}
	return n
}

// funcName is "Name" or, for a method, "Recv.Name".
func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	t := fn.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	switch r := t.(type) {
	case *ast.IndexExpr: // a generic receiver: T[P]
		t = r.X
	case *ast.IndexListExpr:
		t = r.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "." + fn.Name.Name
	}
	return fn.Name.Name
}

// hasReason reports whether doc has a line "Long: <reason>".
func hasReason(doc *ast.CommentGroup) bool {
	if doc == nil {
		return false
	}
	for line := range strings.SplitSeq(doc.Text(), "\n") {
		if reason, ok := strings.CutPrefix(strings.TrimSpace(line), "Long:"); ok && strings.TrimSpace(reason) != "" {
			return true
		}
	}
	return false
}
