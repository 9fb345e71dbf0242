package healer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// triggerDir is where DSH's patched client looks for triggers under the
// home directory (its host profile says so; pinned here as the client has it).
const triggerDir = ".dsh/mcp-watchdog/recover"

func TestWriteTrigger(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	now := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	if err := WriteTrigger(filepath.Join(home, triggerDir), "nowledge-mem", now); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(home, triggerDir, "nowledge-mem")
	b, err := os.ReadFile(p)
	if err != nil || !strings.HasPrefix(string(b), "2026-11-30T09:00:00Z") {
		t.Fatalf("trigger %q, %v", b, err)
	}
	entries, _ := os.ReadDir(filepath.Dir(p))
	if len(entries) != 1 {
		t.Fatalf("temp files left behind: %v", entries)
	}
	if st, _ := os.Stat(filepath.Dir(p)); st.Mode().Perm() != 0o700 {
		t.Fatalf("trigger dir mode %v, want 0700", st.Mode().Perm())
	}
	for _, bad := range []string{"", "..", "a/b", "../x"} {
		if err := WriteTrigger(filepath.Join(home, triggerDir), bad, now); err == nil {
			t.Errorf("WriteTrigger(%q) succeeded", bad)
		}
	}
}
