package deptest_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwatchdog/watchdog/internal/deptest"
)

// TestProxyHealsOnce: no two files of healer/proxy say the same sentence:
// the fast path and net/http share one heal flow (flow.go), not copies.
func TestProxyHealsOnce(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(repoRoot(t), "healer", "proxy")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, e := range entries {
		if n := e.Name(); strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") {
			if files[n], err = os.ReadFile(filepath.Join(dir, n)); err != nil {
				t.Fatal(err)
			}
		}
	}
	found, err := deptest.CheckSaidOnce(files)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		t.Error(f)
	}
}

// TestCheckSaidOnce shows the rule failing on a sentence in two files.
func TestCheckSaidOnce(t *testing.T) {
	t.Parallel()
	const said = `"the server had lost the session; the proxy opened a new one"`
	src := func(body string) []byte { return []byte("package p\nvar x = " + body + "\n") }
	for _, tc := range []struct {
		name  string
		files map[string][]byte
		fail  bool
	}{
		{"once", map[string][]byte{"a.go": src(said), "b.go": src(`"short"`)}, false},
		{"twice in one file", map[string][]byte{"a.go": []byte("package p\nvar x, y = " + said + ", " + said + "\n")}, false},
		{"in two files", map[string][]byte{"fast.go": src(said), "post.go": src(said)}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			found, err := deptest.CheckSaidOnce(tc.files)
			if err != nil || (len(found) > 0) != tc.fail {
				t.Fatalf("CheckSaidOnce: %q, %v; want failure %v", found, err, tc.fail)
			}
			if tc.fail && !strings.Contains(found[0], "fast.go") {
				t.Errorf("%q does not name the files", found[0])
			}
		})
	}
}
