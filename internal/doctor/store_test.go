package doctor

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwatchdog/watchdog/monitor/store"
)

// TestDoctorStoreFinding: doctor reads a store as the daemon does: one over
// the size cap is a problem with its fix, not read; one over the session cap
// says how many were left out.
func TestDoctorStoreFinding(t *testing.T) {
	t.Parallel()
	sessions := func(n int) []byte {
		var b strings.Builder
		b.WriteString("[")
		for i := range n {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `{"session_id":"sess-%08d","last_activity":%d}`, i, 1764408600+i)
		}
		b.WriteString("]")
		return []byte(b.String())
	}
	tests := []struct {
		name    string
		data    []byte
		ok      bool
		details []string
	}{
		{"small", sessions(2), true, []string{"2 session(s)"}},
		{"over the session cap", sessions(store.MaxSessions + 4), true,
			[]string{fmt.Sprintf("%d session(s) kept, 4 more left out", store.MaxSessions)}},
		{"over the size cap", append(sessions(1), make([]byte, store.MaxStoreSize)...), false,
			[]string{"over the", fmt.Sprint(store.MaxStoreSize), "not read"}},
		{"not JSON", []byte("<html>"), false, []string{"not JSON"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "mcp-sessions.json")
			if err := os.WriteFile(path, tt.data, 0o600); err != nil {
				t.Fatal(err)
			}
			f := storeFinding("server mem store", path)
			if f.OK != tt.ok || (!f.OK && f.Fix == "") {
				t.Errorf("finding %+v: want ok=%v, and a fix when not ok", f, tt.ok)
			}
			for _, want := range tt.details {
				if !strings.Contains(f.Detail, want) {
					t.Errorf("detail %q does not say %q", f.Detail, want)
				}
			}
		})
	}
}
