package packaging

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// drillMarks are strings only the drills put into a binary: the names of
// the variables a debug build reads, and the journal fault's message.
var drillMarks = []string{"WATCHDOG_DEBUG_CLOCK_SKEW_FILE", "WATCHDOG_DEBUG_JOURNAL_FAULT_FILE", "journal: injected write fault"}

// TestShippedBinaryHasNoDrills: `make build` (what the .deb and the .app
// package) carries none of the debug drills, while the build the tests
// and the chaos soak run, with the watchdogdebug tag, carries each: the
// check sees them when they are there.
func TestShippedBinaryHasNoDrills(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	shipped := filepath.Join(tmp, "shipped")
	run(t, exec.Command("make", "-C", "..", "--no-print-directory", "build", "BIN="+shipped))
	debug := filepath.Join(tmp, "debug")
	cmd := exec.Command("go", "build", "-tags", "watchdogdebug", "-trimpath", "-ldflags", "-s -w", "-o", debug, "./cmd/watchdog")
	cmd.Dir, cmd.Env = "..", append(os.Environ(), "CGO_ENABLED=0")
	run(t, cmd)
	for _, tc := range []struct {
		bin  string
		want bool
	}{{shipped, false}, {debug, true}} {
		data, err := os.ReadFile(tc.bin)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range drillMarks {
			if got := bytes.Contains(data, []byte(m)); got != tc.want {
				t.Errorf("%s: has %q = %v, want %v", filepath.Base(tc.bin), m, got, tc.want)
			}
		}
		// Gone from every build: the patch's step pause.
		if bytes.Contains(data, []byte("WATCHDOG_PATCH_TEST_PAUSE_MS")) {
			t.Errorf("%s still reads WATCHDOG_PATCH_TEST_PAUSE_MS", filepath.Base(tc.bin))
		}
	}
}

func run(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %v\n%s", cmd.Args, err, out)
	}
}
