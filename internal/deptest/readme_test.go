package deptest_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwatchdog/watchdog/internal/deptest"
)

// TestReadmeLines keeps README.md a newcomer's page: within
// deptest.MaxReadmeLines lines, the long sections in docs/.
func TestReadmeLines(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile(filepath.Join(repoRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if err := deptest.CheckReadme("README.md", src); err != nil {
		t.Error(err)
	}
}

// TestCheckReadme shows the README rule failing, and passing at its limit.
func TestCheckReadme(t *testing.T) {
	t.Parallel()
	lines := func(n int) string { return strings.Repeat("text\n", n) }
	tests := []struct {
		name string
		src  string
		fail bool
	}{
		{"an empty README", "", false},
		{"a README of 200 lines", lines(200), false},
		{"a README of 200 lines, the last without newline", lines(199) + "text", false},
		{"a README of 201 lines", lines(201), true},
		{"a README of 201 lines, the last without newline", lines(200) + "text", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := deptest.CheckReadme("README.md", []byte(tc.src))
			if (err != nil) != tc.fail {
				t.Fatalf("CheckReadme: %v, want failure %v", err, tc.fail)
			}
			if err == nil {
				return
			}
			for _, w := range []string{"README.md", "201 lines", "200", "docs/"} {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("message %q does not say %q", err, w)
				}
			}
		})
	}
}
