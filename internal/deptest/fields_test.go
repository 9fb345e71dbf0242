package deptest_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwatchdog/watchdog/internal/deptest"
)

// TestDaemonFields keeps the daemon's struct under 20 fields.
func TestDaemonFields(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile(filepath.Join(repoRoot(t), "internal", "daemon", "daemon.go"))
	if err != nil {
		t.Fatal(err)
	}
	if err := deptest.CheckDaemonFields("internal/daemon/daemon.go", src, "daemon"); err != nil {
		t.Error(err)
	}
}

// TestCheckDaemonFields shows the rule failing one field past its limit.
func TestCheckDaemonFields(t *testing.T) {
	t.Parallel()
	fields := func(n int) string {
		var b strings.Builder
		b.WriteString("package p\ntype daemon struct {\n\tembedded\n")
		for i := 1; i < n; i++ {
			b.WriteString("\tf" + string(rune('a'+i%26)) + strings.Repeat("x", i/26) + " int\n")
		}
		return b.String() + "}\n"
	}
	for _, tc := range []struct {
		name, src string
		fail      string
	}{
		{"at the limit", fields(deptest.MaxDaemonFields), ""},
		{"one past it", fields(deptest.MaxDaemonFields + 1), "20 fields"},
		{"two names on a line", "package p\ntype daemon struct{ a, b int }", ""},
		{"no such type", "package p\ntype other struct{}", "no struct type daemon"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := deptest.CheckDaemonFields("d.go", []byte(tc.src), "daemon")
			if (err != nil) != (tc.fail != "") || err != nil && !strings.Contains(err.Error(), tc.fail) {
				t.Fatalf("CheckDaemonFields: %v, want failure %q", err, tc.fail)
			}
		})
	}
}
