package clientpatch

import (
	"strings"
	"testing"
)

// TestWriteText: the status for a person lists the parts in the file, or
// what an apply would put in, and the missing ones with what goes without.
func TestWriteText(t *testing.T) {
	t.Parallel()
	core := FeatureStatus{Name: "core", Gives: "heals"}
	beacon := FeatureStatus{Name: "beacon", Missed: "anchor x", Without: "guesses"}
	tests := []struct {
		name string
		st   Status
		want []string
	}{
		{"applied", Status{Module: "/m/index.js", State: StateApplied, Present: []FeatureStatus{core}, Missing: []FeatureStatus{beacon}, Backup: "/b"},
			[]string{"module: /m/index.js", "state:  applied", "backup: /b", "parts:", "  core     in: heals", "  beacon   missing (anchor x): guesses"}},
		{"unpatched", Status{State: StateUnpatched, Base: "c 1.0", WouldApply: []FeatureStatus{core}, Advice: "run apply"},
			[]string{"state:  unpatched: c 1.0 has the session-loss bug", "  core     would go in: heals", "run apply"}},
		{"not found", Status{State: StateNotFound}, []string{"state:  not found"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var b strings.Builder
			if err := tc.st.WriteText(&b); err != nil {
				t.Fatal(err)
			}
			got := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
			for _, w := range tc.want {
				if !containsPrefix(got, w) {
					t.Errorf("text %q has no line starting %q", got, w)
				}
			}
			if tc.st.Module == "" && strings.Contains(b.String(), "module:") {
				t.Errorf("text %q names a module it does not have", got)
			}
		})
	}
}

func containsPrefix(lines []string, prefix string) bool {
	for _, l := range lines {
		if strings.HasPrefix(l, prefix) {
			return true
		}
	}
	return false
}
