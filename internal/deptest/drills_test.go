package deptest_test

import (
	"go/build"
	"path"
	"strings"
	"testing"

	"github.com/mcpwatchdog/watchdog/internal/deptest"
)

// TestNoDrillsShipped: no type of the release build carries a test hook
// (a fault, a clock skew, a debug switch): those live in drill types whose
// fields exist only in builds with the watchdogdebug tag.
func TestNoDrillsShipped(t *testing.T) {
	t.Parallel()
	testbed := func(rel string) bool { return strings.HasPrefix(rel, "internal/testbed") }
	release := build.Default // no watchdogdebug tag: what ships
	walkGoFiles(t, repoRoot(t), testbed, func(rel string, src []byte) error {
		if strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		if ok, err := release.MatchFile(path.Join(repoRoot(t), path.Dir(rel)), path.Base(rel)); err != nil || !ok {
			return err
		}
		found, err := deptest.CheckDrills(rel, src)
		for _, f := range found {
			t.Error(f)
		}
		return err
	})
}

// TestCheckDrills shows the rule failing on a hook in a shipped type, and
// passing on an empty embedded drill.
func TestCheckDrills(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, src string
		want      []string
	}{
		{"an empty drill embedded", "type Options struct{ Keep int; Default bool; drill }\ntype drill struct{}", nil},
		{"a fault hook", "type Options struct{ Fault func(string) error }", []string{"Options.Fault"}},
		{"an unexported hook", "type Options struct{ fault func() }", []string{"Options.fault"}},
		{"a skew file", "type Options struct{ A, ClockSkewFile string }", []string{"Options.ClockSkewFile"}},
		{"a drill with fields", "type drill struct{ Fault func() }", []string{"type drill has fields", "drill.Fault"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := deptest.CheckDrills("x.go", []byte("package p\n"+tc.src))
			if err != nil || len(got) != len(tc.want) {
				t.Fatalf("CheckDrills: %q, %v; want %d findings", got, err, len(tc.want))
			}
			for i, w := range tc.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("finding %q does not name %q", got[i], w)
				}
			}
		})
	}
}
