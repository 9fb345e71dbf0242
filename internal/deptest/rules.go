package deptest

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
)

// Graph maps each package of the module to the packages its non-test files
// import (standard, third-party and the module's own). Only the module's
// packages are keys: what a standard package imports is not the house's
// business.
type Graph map[string][]string

// Edge names an import the house accepts although a rule's To forbids it:
// a package matching From may import a package matching To.
type Edge struct{ From, To string }

// Rule is one import rule. Patterns are written as:
//
//   - "./x" a package of the module, "./x/..." it and everything below it,
//     "./..." every package of the module;
//   - "@product", "@rig", "@test-only": the module's packages of that class
//     (see [Policy]); "@test-helper": testing, testing/... and any package
//     whose name ends in "test" (httptest, iotest, fstest, synctest, ...);
//   - anything else an import path, with "/..." matching below it
//     ("testing/...").
type Rule struct {
	// Name is the rule as docs/ARCHITECTURE.md says it; every violation quotes it.
	Name string
	// From selects the importing packages the rule covers.
	From []string
	// Reach, when set, narrows From to the build of these packages: they
	// and every module package they import, directly or not. It is how a
	// rule speaks of a binary or of a package "and what it uses".
	Reach []string
	// To lists the imports the rule forbids. A rule sets To or Only.
	To []string
	// Only is an allow list: every import of a covered package must match
	// one of these patterns.
	Only []string
	// Allow lists the edges the rule accepts anyway.
	Allow []Edge
}

// Policy is the house's classification of packages and its import rules.
// A module package is a rig when it matches Rigs, test-only when it
// matches TestOnly, and product otherwise, so a new package is product
// (and under every product rule) without anyone listing it.
type Policy struct {
	Module   string   // the module path; "./" in patterns stands for it
	Rigs     []string // test rigs: no product package imports them
	TestOnly []string // packages only tests use: neither rig nor product
	Rules    []Rule
}

// Violation is an import that breaks a rule.
type Violation struct {
	From, To string // the importing package and the imported one
	Rule     string // the rule's Name
	Via      string // for a Reach rule, the package whose build holds From
}

func (v Violation) String() string {
	s := fmt.Sprintf("%s imports %s, which breaks the rule: %s", v.From, v.To, v.Rule)
	if v.Via != "" && v.Via != v.From {
		s += fmt.Sprintf(" (%s is in the build of %s)", v.From, v.Via)
	}
	return s
}

// The classes a pattern can name.
const (
	classProduct    = "@product"
	classRig        = "@rig"
	classTestOnly   = "@test-only"
	classTestHelper = "@test-helper"
)

// House is the rule set of docs/ARCHITECTURE.md for the module at module.
func House(module string) Policy {
	return Policy{
		Module: module,
		Rigs:   []string{"./internal/testbed/..."},
		// The desktop tests, the tray program they drive, and this package.
		TestOnly: []string{"./tray/e2e", "./tray/internal/trayapp", "./internal/deptest"},
		Rules: []Rule{{
			Name: "product code carries no test rig (internal/testbed/...)",
			From: []string{classProduct},
			To:   []string{classRig},
		}, {
			// Said of the shipped binary as a whole, so a violation names
			// the build it lands in (TestCommandImportsNoTestCode adds the
			// third-party packages).
			Name:  "the command layer imports no test code: the build of cmd/watchdog holds no rig, no test-only package and no test helper",
			From:  []string{"./..."},
			Reach: []string{"./cmd/watchdog"},
			To:    []string{classRig, classTestOnly, classTestHelper},
		}, {
			Name: "seeing decides nothing: monitor/... imports neither healer/... nor tray/...",
			From: []string{"./monitor/..."},
			To:   []string{"./healer/...", "./tray/..."},
		}, {
			Name: "acting knows no screen: healer/... does not import tray/...",
			From: []string{"./healer/..."},
			To:   []string{"./tray/..."},
		}, {
			Name: "the daemon imports no rig",
			From: []string{"./internal/daemon/..."},
			To:   []string{"./internal/testbed/..."},
		}, {
			// `watchdog demo` stages a world (server, client, the real
			// daemon); only cmd/watchdog runs the demo.
			Name: "only cmd/watchdog runs the daemon (and the demo it stages): no other product package imports internal/daemon",
			From: []string{classProduct},
			To:   []string{"./internal/daemon/..."},
			Allow: []Edge{{"./cmd/watchdog", "./internal/daemon/..."}, {"./internal/daemon/...", "./internal/daemon/..."},
				{"./internal/demo", "./internal/daemon"}},
		}, {
			Name: "product code imports no test helper (testing, a *test package, a test-only package) outside _test.go files",
			From: []string{classProduct},
			To:   []string{classTestHelper, classTestOnly},
		}, {
			Name:  "the model does no I/O: internal/health and the module packages it uses import only pure standard packages",
			From:  []string{"./..."},
			Reach: []string{"./internal/health/..."},
			Only: []string{
				"bytes", "cmp", "encoding", "encoding/json", "errors", "fmt", "iter", "maps", "math", "math/bits",
				"slices", "sort", "strconv", "strings", "time", "unicode", "unicode/utf8",
				// internal/mask hashes short ids and redacts URLs: pure computation.
				"crypto/sha256", "net/url",
				// internal/host is the hosts' profiles, data only: the model reads
				// how each host meets a lost session there (path joins its folders),
				// against internal/answer's kinds.
				"path",
				"./internal/health/...", "./internal/mask", "./internal/textsafe", "./internal/host", "./internal/answer",
			},
		}},
	}
}

// Check returns every import in g that breaks one of p's rules, rule by
// rule in p's order, then by importing and imported package. It fails only
// on a policy it cannot read (an unknown class, a rule with both or neither
// of To and Only).
func (p Policy) Check(g Graph) ([]Violation, error) {
	if err := p.validate(); err != nil {
		return nil, err
	}
	var out []Violation
	for _, r := range p.Rules {
		covered := p.covered(g, r)
		for _, from := range sortedKeys(covered) {
			imports := slices.Clone(g[from])
			slices.Sort(imports)
			for _, to := range slices.Compact(imports) {
				if p.forbids(r, from, to) {
					out = append(out, Violation{From: from, To: to, Rule: r.Name, Via: covered[from]})
				}
			}
		}
	}
	return out, nil
}

// Unmatched returns the "./" patterns of p that match no package of g: a
// rule about a package that moved or was renamed would pass forever.
func (p Policy) Unmatched(g Graph) []string {
	var out []string
	pkgs := sortedKeys(g)
	seen := map[string]bool{}
	for _, pat := range p.patterns() {
		if !strings.HasPrefix(pat, "./") || seen[pat] {
			continue
		}
		seen[pat] = true
		if !slices.ContainsFunc(pkgs, func(pkg string) bool { return p.match(pkg, pat) }) {
			out = append(out, pat)
		}
	}
	return out
}

// patterns lists every pattern p holds, for validation and Unmatched.
func (p Policy) patterns() []string {
	all := slices.Concat(p.Rigs, p.TestOnly)
	for _, r := range p.Rules {
		all = slices.Concat(all, r.From, r.Reach, r.To, r.Only)
		for _, e := range r.Allow {
			all = append(all, e.From, e.To)
		}
	}
	return all
}

func (p Policy) validate() error {
	var errs []error
	for _, pat := range slices.Concat(p.Rigs, p.TestOnly) {
		if !strings.HasPrefix(pat, "./") {
			errs = append(errs, fmt.Errorf("class pattern %q is not a module path (./...)", pat))
		}
	}
	for _, pat := range p.patterns() {
		if strings.HasPrefix(pat, "@") && !slices.Contains([]string{classProduct, classRig, classTestOnly, classTestHelper}, pat) {
			errs = append(errs, fmt.Errorf("unknown class %q", pat))
		}
	}
	for _, r := range p.Rules {
		if (len(r.To) == 0) == (len(r.Only) == 0) {
			errs = append(errs, fmt.Errorf("rule %q: set exactly one of To and Only", r.Name))
		}
		if len(r.From) == 0 {
			errs = append(errs, fmt.Errorf("rule %q: From is empty", r.Name))
		}
	}
	return errors.Join(errs...)
}

// covered returns the packages of g that r covers, each with the Reach
// root whose build holds it ("" for a rule without Reach).
func (p Policy) covered(g Graph, r Rule) map[string]string {
	via := map[string]string{}
	if len(r.Reach) == 0 {
		for pkg := range g {
			via[pkg] = ""
		}
	} else {
		for _, root := range sortedKeys(g) {
			if p.matchAny(root, r.Reach) {
				p.reach(g, root, root, via)
			}
		}
	}
	for pkg := range via {
		if !p.matchAny(pkg, r.From) {
			delete(via, pkg)
		}
	}
	return via
}

// reach marks pkg and every module package it imports as in root's build.
func (p Policy) reach(g Graph, pkg, root string, via map[string]string) {
	if _, done := via[pkg]; done {
		return
	}
	via[pkg] = root
	for _, imp := range g[pkg] {
		if _, ok := g[imp]; ok {
			p.reach(g, imp, root, via)
		}
	}
}

func (p Policy) forbids(r Rule, from, to string) bool {
	var bad bool
	if len(r.Only) > 0 {
		bad = !p.matchAny(to, r.Only)
	} else {
		bad = p.matchAny(to, r.To)
	}
	return bad && !slices.ContainsFunc(r.Allow, func(e Edge) bool { return p.match(from, e.From) && p.match(to, e.To) })
}

func (p Policy) matchAny(pkg string, patterns []string) bool {
	return slices.ContainsFunc(patterns, func(pat string) bool { return p.match(pkg, pat) })
}

func (p Policy) match(pkg, pat string) bool {
	switch pat {
	case classProduct, classRig, classTestOnly:
		return p.class(pkg) == pat
	case classTestHelper:
		return pkg == "testing" || strings.HasPrefix(pkg, "testing/") || strings.HasSuffix(path.Base(pkg), "test")
	}
	if rel, ok := strings.CutPrefix(pat, "./"); ok {
		pat = p.Module + "/" + rel
	}
	if base, ok := strings.CutSuffix(pat, "/..."); ok {
		return pkg == base || strings.HasPrefix(pkg, base+"/")
	}
	return pkg == pat
}

// TestCode reports whether pkg, a package of the module or any other, is
// code for tests: a rig, a test-only package, or a test helper (testing,
// testing/..., a package named *test). The packages under another module's
// or Go's own internal/ are their plumbing, not a helper anyone chose: the
// runtime's internal/synctest and os's internal/testlog are in every binary.
func (p Policy) TestCode(pkg string) bool {
	switch p.class(pkg) {
	case classRig, classTestOnly:
		return true
	case "":
		if slices.Contains(strings.Split(pkg, "/"), "internal") {
			return false
		}
	}
	return p.match(pkg, classTestHelper)
}

// class returns the class of a module package, "" for any other.
func (p Policy) class(pkg string) string {
	switch {
	case pkg != p.Module && !strings.HasPrefix(pkg, p.Module+"/"):
		return ""
	case p.matchAny(pkg, p.Rigs):
		return classRig
	case p.matchAny(pkg, p.TestOnly):
		return classTestOnly
	default:
		return classProduct
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
