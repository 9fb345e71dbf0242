package deptest_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwatchdog/watchdog/internal/deptest"
)

// TestCommandImportsNoTestCode lists the whole build of the watchdog
// binary, standard and third-party packages included, as `go list -deps`
// sees it on each platform it ships for, and fails on every package of it
// that is test code: a rig (internal/testbed/...), a test-only package, or
// a test helper such as testing or net/http/httptest.
func TestCommandImportsNoTestCode(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	for _, pl := range []struct{ goos, cgo string }{{"linux", "1"}, {"darwin", "1"}, {"darwin", "0"}} {
		t.Run(pl.goos+"/cgo="+pl.cgo, func(t *testing.T) {
			t.Parallel()
			module, build := listBuild(t, root, "./cmd/watchdog", "GOOS="+pl.goos, "CGO_ENABLED="+pl.cgo)
			p := deptest.House(module)
			for _, pkg := range build {
				if p.TestCode(pkg) {
					t.Errorf("the watchdog binary carries test code: %s is in the build of %s/cmd/watchdog; "+
						"move what the command needs out of the test wing into a product package", pkg, module)
				}
			}
		})
	}
}

// listBuild returns the main module's path and every package in the build
// of pkg (pkg included), under the extra environment env.
func listBuild(t *testing.T, root, pkg string, env ...string) (module string, build []string) {
	t.Helper()
	for _, p := range goList(t, root, pkg, env...) {
		if p.Module != nil && p.Module.Main {
			module = p.Module.Path
		}
		build = append(build, p.ImportPath)
	}
	if module == "" {
		t.Fatalf("go list %v: no package of the main module in the build of %s", env, pkg)
	}
	return module, build
}

// TestTestCode shows what counts as test code in a build.
func TestTestCode(t *testing.T) {
	t.Parallel()
	p := deptest.House(mod)
	for pkg, want := range map[string]bool{
		mod + "/internal/testbed/soak":       true,
		mod + "/internal/testbed/tsserver":   true,
		mod + "/tray/e2e":                    true,
		mod + "/internal/deptest":            true,
		"testing":                            true,
		"testing/fstest":                     true,
		"net/http/httptest":                  true,
		"example.org/lib/footest":            true,
		mod + "/internal/demo":               false,
		mod + "/internal/demoserver":         false,
		mod + "/cmd/watchdog":                false,
		"net/http":                           false,
		"internal/synctest":                  false, // the runtime's, in every binary
		"internal/testlog":                   false,
		"example.org/lib/internal/unittest":  false,
		"github.com/modelcontextprotocol/go": false,
	} {
		if got := p.TestCode(pkg); got != want {
			t.Errorf("TestCode(%s) = %v, want %v", pkg, got, want)
		}
	}
}

// TestPackageSizes keeps the command layer thin and the daemon the loop:
// cmd/watchdog's non-test .go files together stay within
// deptest.MaxCommandLines, internal/daemon's within MaxDaemonFiles and
// MaxDaemonLines.
func TestPackageSizes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		dir             string
		maxFiles, lines int
		fix             string
	}{
		{"cmd/watchdog", 0, deptest.MaxCommandLines, "move what is not flags and wiring (rendering, shaping, deciding) into the package whose job it is"},
		{"internal/daemon", deptest.MaxDaemonFiles, deptest.MaxDaemonLines, "move a concern that is not the loop's wiring into a package of its own"},
	} {
		files, lines := nonTestSize(t, filepath.Join(repoRoot(t), filepath.FromSlash(tc.dir)))
		if lines > tc.lines {
			t.Errorf("%s has %d non-test lines, over the %d it may have: %s", tc.dir, lines, tc.lines, tc.fix)
		}
		if tc.maxFiles > 0 && files > tc.maxFiles {
			t.Errorf("%s has %d non-test files, over the %d it may have: %s", tc.dir, files, tc.maxFiles, tc.fix)
		}
	}
}

// nonTestSize counts the non-test .go files of dir and their lines.
func nonTestSize(t *testing.T, dir string) (files, lines int) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		lines += bytes.Count(src, []byte("\n"))
		files++
	}
	if files == 0 {
		t.Fatalf("no .go file in %s", dir)
	}
	return files, lines
}
