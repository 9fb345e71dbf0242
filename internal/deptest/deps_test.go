package deptest_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpwatchdog/watchdog/internal/deptest"
)

// TestImportRules checks the module's real import graph, as `go list` sees
// it for each platform, against the house rules.
func TestImportRules(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	// The platforms the watchdog ships for, macOS both with cgo (the tray)
	// and without (a cross-build, no tray).
	platforms := []struct{ goos, cgo string }{{"linux", "1"}, {"darwin", "1"}, {"darwin", "0"}}
	for _, pl := range platforms {
		t.Run(pl.goos+"/cgo="+pl.cgo, func(t *testing.T) {
			t.Parallel()
			module, g := loadGraph(t, root, "GOOS="+pl.goos, "CGO_ENABLED="+pl.cgo)
			p := deptest.House(module)
			vs, err := p.Check(g)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range vs {
				t.Error(v)
			}
			for _, pat := range p.Unmatched(g) {
				t.Errorf("rule pattern %s matches no package: update House to where the package went", pat)
			}
		})
	}
}

// listed is one package as `go list -json` describes it.
type listed struct {
	ImportPath string
	Imports    []string
	Module     *struct {
		Path string
		Main bool
	}
	Error *struct{ Err string }
}

// goList lists pattern's packages and every package they depend on, with
// `go list -e -deps` in root under the extra environment env.
func goList(t *testing.T, root, pattern string, env ...string) []listed {
	t.Helper()
	cmd := exec.Command("go", "list", "-e", "-deps", "-json=ImportPath,Imports,Module,Error", pattern)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %v: %v\n%s", env, err, stderr.Bytes())
	}
	var pkgs []listed
	for dec := json.NewDecoder(bytes.NewReader(out)); dec.More(); {
		var pkg listed
		if err := dec.Decode(&pkg); err != nil {
			t.Fatalf("go list output: %v", err)
		}
		if pkg.Error != nil {
			t.Errorf("go list %v: %s: %s", env, pkg.ImportPath, pkg.Error.Err)
		}
		pkgs = append(pkgs, pkg)
	}
	return pkgs
}

// loadGraph lists the module's packages and their non-test imports with
// `go list -deps` under the extra environment env.
func loadGraph(t *testing.T, root string, env ...string) (module string, g deptest.Graph) {
	t.Helper()
	g = deptest.Graph{}
	for _, pkg := range goList(t, root, "./...", env...) {
		if pkg.Module != nil && pkg.Module.Main {
			module = pkg.Module.Path
			g[pkg.ImportPath] = pkg.Imports
		}
	}
	if module == "" || len(g) == 0 {
		t.Fatalf("go list %v listed no package of the main module", env)
	}
	return module, g
}

// repoRoot is the directory of go.mod above the test's directory.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}

const mod = "example.com/w"

// houseLike is a made-up module shaped like the house that keeps every
// rule, including what rigs and test-only packages may do.
func houseLike() deptest.Graph {
	m := func(rel ...string) []string {
		out := make([]string, len(rel))
		for i, r := range rel {
			if strings.HasPrefix(r, "./") {
				r = mod + r[1:]
			}
			out[i] = r
		}
		return out
	}
	g := deptest.Graph{}
	for pkg, imports := range map[string][]string{
		"./cmd/watchdog":              m("./internal/daemon", "./internal/demo", "./monitor/classify", "./tray", "os"),
		"./internal/daemon":           m("./healer", "./monitor/classify", "./internal/health", "./tray", "os"),
		"./internal/demo":             m("./internal/daemon", "./internal/demoserver", "./healer"),
		"./internal/demoserver":       m("./internal/mask", "./internal/demoserver/truth", "net/http"),
		"./internal/demoserver/truth": m("strings", "time"),
		"./internal/testbed/soak":     m("./internal/daemon", "./internal/health"),
		"./internal/testbed/tsserver": m("testing", "os/exec"),
		"./internal/testbed/tailbuf":  m("sync"),
		"./internal/journal":          m("./internal/health", "os"),
		"./internal/host":             m("./internal/mask", "./internal/answer", "strings"),
		"./internal/answer":           m(),
		"./healer":                    m("./internal/health", "os/exec"),
		"./monitor/classify":          m("./internal/mask", "os"),
		"./tray":                      m("./internal/health"),
		"./tray/e2e":                  m("./tray", "./internal/demoserver", "testing"),
		"./tray/internal/trayapp":     m("./tray", "./internal/health", "os"),
		"./internal/deptest":          m("go/parser", "strings"),
		"./internal/health":           m("./internal/mask", "fmt", "time"),
		"./internal/mask":             m("./internal/textsafe"),
		"./internal/textsafe":         nil,
	} {
		g[m(pkg)[0]] = imports
	}
	return g
}

type want struct{ from, to, rule string }

func (w want) String() string { return fmt.Sprintf("%s imports %s (%s)", w.from, w.to, w.rule) }

// TestPolicyCatchesViolations shows each rule failing: one import added to
// a graph that keeps them all gives exactly the violations listed.
// Long: a table of 21 cases, one or more per rule.
func TestPolicyCatchesViolations(t *testing.T) {
	t.Parallel()
	const (
		rig      = "product code carries no test rig"
		command  = "the command layer imports no test code"
		seeing   = "seeing decides nothing"
		acting   = "acting knows no screen"
		daemon   = "the daemon imports no rig"
		onlyMain = "only cmd/watchdog runs the daemon"
		helper   = "product code imports no test helper"
		model    = "the model does no I/O"
	)
	tests := []struct {
		name string
		add  map[string][]string // imports added, module-relative
		want []want
	}{
		{"the house as it is", nil, nil},
		{"monitor imports healer", map[string][]string{"monitor/x": {"./healer"}},
			[]want{{"monitor/x", "healer", seeing}}},
		{"monitor imports tray", map[string][]string{"monitor/classify": {"./tray"}},
			[]want{{"monitor/classify", "tray", seeing}}},
		{"healer imports tray", map[string][]string{"healer/clientpatch": {"./tray"}},
			[]want{{"healer/clientpatch", "tray", acting}}},
		{"the daemon imports a rig", map[string][]string{"internal/daemon": {"./internal/testbed/soak"}},
			[]want{{"internal/daemon", "internal/testbed/soak", rig}, {"internal/daemon", "internal/testbed/soak", command},
				{"internal/daemon", "internal/testbed/soak", daemon}}},
		{"cmd/watchdog imports a rig", map[string][]string{"cmd/watchdog": {"./internal/testbed/soak"}},
			[]want{{"cmd/watchdog", "internal/testbed/soak", rig}, {"cmd/watchdog", "internal/testbed/soak", command}}},
		{"the demo brings a rig into the binary", map[string][]string{"internal/demo": {"./internal/testbed/tailbuf"}},
			[]want{{"internal/demo", "internal/testbed/tailbuf", rig}, {"internal/demo", "internal/testbed/tailbuf", command}}},
		{"the demo server brings a rig that imports testing", map[string][]string{"internal/demoserver": {"./internal/testbed/tsserver"}},
			[]want{{"internal/demoserver", "internal/testbed/tsserver", rig},
				{"internal/demoserver", "internal/testbed/tsserver", command}, {"internal/testbed/tsserver", "testing", command}}},
		{"the demo brings a test-only package into the binary", map[string][]string{"internal/demo": {"./tray/e2e"}},
			[]want{{"internal/demo", "tray/e2e", command}, {"tray/e2e", "testing", command}, {"internal/demo", "tray/e2e", helper}}},
		{"the demo runs the daemon", map[string][]string{"internal/demo": {"./internal/daemon"}}, nil},
		{"the demo server runs the daemon", map[string][]string{"internal/demoserver": {"./internal/daemon"}},
			[]want{{"internal/demoserver", "internal/daemon", onlyMain}}},
		{"a new product package imports a rig", map[string][]string{"internal/host": {"./internal/testbed/tailbuf"}},
			[]want{{"internal/host", "internal/testbed/tailbuf", rig}}},
		{"another product package runs the daemon", map[string][]string{"tray": {"./internal/daemon"}},
			[]want{{"tray", "internal/daemon", onlyMain}}},
		{"product imports testing", map[string][]string{"monitor/classify": {"testing"}},
			[]want{{"monitor/classify", "testing", command}, {"monitor/classify", "testing", helper}}},
		{"product imports a *test package", map[string][]string{"healer": {"net/http/httptest"}},
			[]want{{"healer", "net/http/httptest", command}, {"healer", "net/http/httptest", helper}}},
		{"product imports a test-only package", map[string][]string{"tray": {"./tray/e2e"}},
			[]want{{"tray", "tray/e2e", command}, {"tray/e2e", "testing", command}, {"tray", "tray/e2e", helper}}},
		{"the model imports os", map[string][]string{"internal/health": {"os"}},
			[]want{{"internal/health", "os", model}}},
		{"a package the model uses does I/O", map[string][]string{"internal/mask": {"net/http"}},
			[]want{{"internal/mask", "net/http", model}}},
		{"the model imports the journal", map[string][]string{"internal/health": {"./internal/journal"}},
			[]want{{"internal/health", "internal/journal", model}, {"internal/journal", "os", model}}},
		{"rigs may use the daemon, the healer and each other", map[string][]string{
			"internal/testbed/repro": {"./healer", "./internal/daemon", "./internal/testbed/tsserver", "testing"}}, nil},
		{"test-only packages may use rigs", map[string][]string{"tray/e2e": {"./internal/testbed/soak"}}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			g := houseLike()
			for pkg, imports := range tc.add {
				for _, imp := range imports {
					if strings.HasPrefix(imp, "./") {
						imp = mod + imp[1:]
					}
					g[mod+"/"+pkg] = append(g[mod+"/"+pkg], imp)
				}
			}
			checkWant(t, g, tc.want)
		})
	}
}

// checkWant checks g against the house rules and compares the violations
// with wants, and that each message names both packages and the rule.
func checkWant(t *testing.T, g deptest.Graph, wants []want) {
	t.Helper()
	vs, err := deptest.House(mod).Check(g)
	if err != nil {
		t.Fatal(err)
	}
	var got []want
	for _, v := range vs {
		w := want{strings.TrimPrefix(v.From, mod+"/"), strings.TrimPrefix(v.To, mod+"/"), v.Rule}
		for _, ww := range wants {
			if ww.from == w.from && ww.to == w.to && strings.HasPrefix(v.Rule, ww.rule) {
				w.rule = ww.rule
			}
		}
		got = append(got, w)
		if s := v.String(); !strings.Contains(s, v.From+" imports "+v.To) || !strings.Contains(s, v.Rule) {
			t.Errorf("message %q does not name both packages and the rule", s)
		}
	}
	if !slices.Equal(got, wants) {
		t.Errorf("violations:\n%s\nwant:\n%s", lines(got), lines(wants))
		for _, v := range vs {
			t.Log(v)
		}
	}
}

func lines[T fmt.Stringer](xs []T) string {
	var b strings.Builder
	for _, x := range xs {
		fmt.Fprintf(&b, "\t%s\n", x)
	}
	return b.String()
}

// TestPolicyNamesTheBuild shows that a violation found through a binary's
// build says which binary it is in.
func TestPolicyNamesTheBuild(t *testing.T) {
	t.Parallel()
	g := houseLike()
	demo := mod + "/internal/demo"
	g[demo] = append(g[demo], mod+"/internal/testbed/tailbuf")
	vs, err := deptest.House(mod).Check(g)
	if err != nil || len(vs) != 2 || !strings.HasPrefix(vs[1].Rule, "the command layer") {
		t.Fatalf("Check = %v, %v; want two violations, the second in the build", vs, err)
	}
	if s := vs[1].String(); !strings.Contains(s, "is in the build of "+mod+"/cmd/watchdog") {
		t.Errorf("message %q does not name the binary", s)
	}
}

// TestPolicyRefusesWhatItCannotRead: a typo in the rules must not pass
// as a rule that holds.
func TestPolicyRefusesWhatItCannotRead(t *testing.T) {
	t.Parallel()
	for name, r := range map[string]deptest.Rule{
		"unknown class":     {Name: "r", From: []string{"@prodcut"}, To: []string{"os"}},
		"both To and Only":  {Name: "r", From: []string{"./..."}, To: []string{"os"}, Only: []string{"fmt"}},
		"neither":           {Name: "r", From: []string{"./..."}},
		"nothing it covers": {Name: "r", To: []string{"os"}},
	} {
		p := deptest.House(mod)
		p.Rules = append(p.Rules, r)
		if _, err := p.Check(houseLike()); err == nil {
			t.Errorf("%s: Check accepted %+v", name, r)
		}
	}
	p := deptest.House(mod)
	p.Rigs = append(p.Rigs, "internal/other")
	if _, err := p.Check(houseLike()); err == nil {
		t.Error("Check accepted a rig pattern outside the module")
	}
}

// TestUnmatchedFindsStalePatterns: a rule about a package that moved
// matches nothing and would pass forever; Unmatched says so.
func TestUnmatchedFindsStalePatterns(t *testing.T) {
	t.Parallel()
	g := houseLike()
	if got := deptest.House(mod).Unmatched(g); len(got) != 0 {
		t.Fatalf("Unmatched on the made-up house = %q", got)
	}
	for _, pkg := range slices.Collect(maps.Keys(g)) {
		if strings.HasPrefix(pkg, mod+"/tray/e2e") {
			delete(g, pkg)
		}
	}
	if got := deptest.House(mod).Unmatched(g); !slices.Equal(got, []string{"./tray/e2e"}) {
		t.Errorf("Unmatched without tray/e2e = %q, want [./tray/e2e]", got)
	}
}
