//go:build watchdogdebug

package adopt

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwatchdog/watchdog/internal/host"
)

// Measured: a permission failure left the proxy in the watchdog's config
// and adopted.json saying adopted, and a retry duplicated the record. Now
// the failed adopt is undone whole, and the retry records each server once.
func TestFailedAdoptUndoneAndRetriedOnce(t *testing.T) {
	t.Parallel()
	if os.Geteuid() == 0 {
		t.Log("running as root: the folder's permission does not stop root; the fault test covers it by injection")
	}
	path, orig := fixture(t, "cursor.json", "mcp.json")
	r := newRig(t, host.Cursor(), path)
	denied := errors.New("permission denied")
	r.o.fault = func(step string) error {
		if strings.HasPrefix(step, "writing "+path+"/swap") {
			return denied
		}
		return nil
	}
	_, err := Adopt(t.Context(), r.o)
	if !errors.Is(err, denied) || !strings.Contains(err.Error(), "nothing was changed") {
		t.Fatalf("adopt with the host file's rename refused: %v", err)
	}
	if !bytes.Equal(read(t, path), orig) {
		t.Fatal("the host file changed")
	}
	if _, err := os.Stat(r.o.ConfigPath); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the watchdog config adopt made is still there: %v", err)
	}
	if a, _ := Adopted(r.o.StateDir); len(a) != 0 {
		t.Fatalf("the record says adopted: %v", a)
	}
	if left, _ := filepath.Glob(filepath.Join(r.o.StateDir, WrappersDir, "*")); len(left) != 0 {
		t.Fatalf("the wrapper of the stdio server is still there: %v", left)
	}
	r.o.fault = nil
	if _, err := Adopt(t.Context(), r.o); err != nil {
		t.Fatal(err)
	}
	rec, _, _ := loadRecord(r.o.StateDir)
	if n := len(rec.Hosts["Cursor"].Files[0].Servers); n != 3 {
		t.Fatalf("the record holds %d servers after the retry, want 3 (mem, linear, and github's wrapper)", n)
	}
	agree(t, r.o)
}

// TestConcurrentEditDuringWrap: another program's change to the host's
// file while adopt writes the wrapper is never written over: a change
// elsewhere in the file is kept beside the wrapped command; a change of
// the command itself undoes the run (its wrapper removed) and adopt plans
// again, wrapping the command the user wrote.
func TestConcurrentEditDuringWrap(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ name, from, to, fallback string }{
		{"elsewhere", `model = "o4"`, `model = "o5"`, "npx"},
		{"the command itself", `command = "npx"`, `command = "bunx"`, "bunx"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, path, orig := codexRig(t, `command = "npx"`)
			edited, runs := false, 0
			r.o.fault = func(step string) error {
				if strings.HasPrefix(step, "writing the wrapper of mem in ") {
					runs++
					if !edited {
						edited = true
						must(t, os.WriteFile(path, []byte(strings.Replace(orig, tt.from, tt.to, 1)), 0o600))
					}
				}
				return nil
			}
			if _, err := Adopt(t.Context(), r.o); err != nil {
				t.Fatal(err)
			}
			got := string(read(t, path))
			w := commandOf(t, path)
			if tt.fallback == "npx" && !strings.Contains(got, tt.to) {
				t.Fatalf("the other program's change was written over:\n%s", got)
			}
			if s := Wrappers(r.o.StateDir).Scripts[w]; s.Command != tt.fallback || tt.fallback == "bunx" && runs < 2 {
				t.Fatalf("after %d wrapper writes, the wrapper falls back to %q; want %q", runs, s.Command, tt.fallback)
			}
			if left, _ := filepath.Glob(filepath.Join(r.o.StateDir, WrappersDir, "*")); len(left) != 1 {
				t.Fatalf("wrappers: %v", left)
			}
			if _, err := Release(t.Context(), r.o); err != nil || string(read(t, path)) != strings.Replace(orig, tt.from, tt.to, 1) {
				t.Fatalf("release: %v\n%s", err, read(t, path))
			}
		})
	}
}
