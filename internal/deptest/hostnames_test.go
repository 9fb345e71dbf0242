package deptest_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpwatchdog/watchdog/internal/host"
)

// TestNoHostNamesOutsideProfiles walks every non-test Go file of the module
// (but the profiles and the patch payload) and fails on a string literal
// that names the host: the grep of issue 13's "Done when", done on the
// syntax tree so that comments do not count.
func TestNoHostNamesOutsideProfiles(t *testing.T) {
	t.Parallel()
	fset := token.NewFileSet()
	files := walkGoFiles(t, repoRoot(t), profileOrPayload, func(rel string, src []byte) error {
		if strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, rel, src, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, hit := range hostLiterals(fset, f) {
			t.Errorf("%s: a string literal names the host; take it from a host.Profile", hit)
		}
		return nil
	})
	if files < 100 {
		t.Fatalf("walked only %d files: is that the module root?", files)
	}
}

// profileOrPayload: the profiles themselves, and the patch payload
// (JavaScript the client runs, which names DSH's folders itself).
func profileOrPayload(rel string) bool {
	return rel == "internal/host" || rel == "healer/clientpatch/payload"
}

// hostWords are the words that name a known host: each profile's name,
// client name, npm packages and config folders, and DSH's npm scope.
func hostWords() []string {
	words := []string{"@deepseek-ai", ".dsh/"}
	for _, p := range host.Profiles() {
		words = append(words, p.Name, p.ClientName)
		if p.Patchable() {
			words = append(words, p.Client.Package, p.Client.HostPackage)
		}
		for _, c := range p.Config {
			for _, dir := range []string{c.Darwin, c.Linux} {
				if dir != "" {
					words = append(words, dir+"/")
				}
			}
		}
	}
	return words
}

// hostLiterals returns "file:line: literal" for each string literal in f
// that names a known host, its client, its packages or its folders:
// outside the profiles such a literal is a fact about a host that did not
// come from its profile. Comments may name hosts freely, and so may tests.
func hostLiterals(fset *token.FileSet, f *ast.File) []string {
	hostWords := hostWords()
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		lit, ok := n.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return true
		}
		s, err := strconv.Unquote(lit.Value)
		if err != nil {
			s = lit.Value
		}
		for _, w := range hostWords {
			if strings.Contains(s, w) {
				pos := fset.Position(lit.Pos())
				out = append(out, pos.Filename+":"+strconv.Itoa(pos.Line)+": "+lit.Value)
				break
			}
		}
		return true
	})
	return out
}

// TestHostLiteralsCanFail shows the rule catching what it is for, and
// leaving comments alone.
func TestHostLiteralsCanFail(t *testing.T) {
	t.Parallel()
	const src = `package x

// restart DSH, or patch dsh-mcp-client: a comment may say so.
const advice = "then restart DSH"
const other = "point Claude Code at the proxy"

func f() []string {
	return []string{"dsh", ` + "`~/.dsh/logs`" + `, "@deepseek-ai/dsh-mcp-client", "nothing here"}
}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "x.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	got := hostLiterals(fset, f)
	want := []string{
		`x.go:4: "then restart DSH"`,
		`x.go:5: "point Claude Code at the proxy"`,
		"x.go:8: `~/.dsh/logs`",
		`x.go:8: "@deepseek-ai/dsh-mcp-client"`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("found\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
