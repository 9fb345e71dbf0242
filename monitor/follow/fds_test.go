package follow

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// childNofileEnv is the RLIMIT_NOFILE the printer-lowfd child runs under.
const childNofileEnv = "FOLLOW_TEST_NOFILE"

// lowFDChild is printerChild under a lowered descriptor limit, soft and
// hard, set after the Go runtime raised the soft one at start.
func lowFDChild() int {
	n, err := strconv.ParseUint(os.Getenv(childNofileEnv), 10, 64)
	if err == nil {
		err = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: n, Max: n})
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "lower RLIMIT_NOFILE:", err)
		return 1
	}
	return printerChild()
}

// TestMoreFilesThanDescriptors: issue 15's measurement C (5,000 logs under
// a 1,024 limit killed the daemon after ~4,000 warnings), scaled down: 300
// logs under a limit of 128. Files past the budget are polled: a line
// appended to one is delivered, as to a held one; one warning says how many
// are polled and why; no open fails for want of descriptors.
func TestMoreFilesThanDescriptors(t *testing.T) {
	t.Parallel()
	const limit, files = 128, 300
	budget := budgetFor(limit)
	if budget <= 0 || budget >= files {
		t.Fatalf("budget %d under a limit of %d: the test needs 0 < budget < %d", budget, limit, files)
	}
	dir := t.TempDir()
	name := func(i int) string { return filepath.Join(dir, fmt.Sprintf("f%04d.log", i)) }
	for i := range files {
		writeFile(t, name(i), fmt.Sprintf("first %04d\n", i))
	}
	c := startChild(t, os.Args[0], "printer-lowfd",
		[]string{childDirEnv + "=" + dir, childNofileEnv + "=" + strconv.Itoa(limit)}, nil)
	c.waitOutput("the last file's history", equalsFn(fmt.Sprintf("LINE first %04d", files-1)))
	for _, i := range []int{files - 1, 0, budget} {
		appendFile(t, name(i), fmt.Sprintf("hello %04d\n", i))
		c.waitOutput(fmt.Sprintf("the line appended to file %d", i), equalsFn(fmt.Sprintf("LINE hello %04d", i)))
	}
	c.stop()

	var polled []string
	for _, l := range c.stdout {
		if strings.Contains(l, "too many open files") {
			t.Errorf("an open failed for want of descriptors: %s", l)
		}
		if strings.HasPrefix(l, "WARN") && strings.Contains(l, ErrPolled.Error()) {
			polled = append(polled, l)
		}
	}
	want := fmt.Sprintf("%d of %d log files are polled", files-budget, files)
	if len(polled) != 1 || !strings.Contains(polled[0], want) || !strings.Contains(polled[0], "RLIMIT_NOFILE "+strconv.Itoa(limit)) {
		t.Errorf("polled warnings %q, want one saying %q and naming the limit", polled, want)
	}
}

// TestBudgetFor: the held-file budget leaves a reserve at every limit.
func TestBudgetFor(t *testing.T) {
	t.Parallel()
	tests := []struct {
		soft uint64
		want int
	}{
		{0, 0}, {16, 0}, {32, 0}, {64, 32}, {128, 96}, {1024, 768}, {4096, 3840}, {1 << 20, maxHeld}, {^uint64(0), maxHeld},
	}
	for _, tt := range tests {
		if got := budgetFor(tt.soft); got != tt.want {
			t.Errorf("budgetFor(%d) = %d, want %d", tt.soft, got, tt.want)
		}
	}
}

func equalsFn(want string) func(string) bool {
	return func(s string) bool { return s == want }
}

// TestPolledFileIsHeldOnceThereIsRoom (issue 15): a file polled for want
// of descriptors stayed polled after a held one was gone, so its rotation
// out of the globs still lost the lines written after it. With one
// descriptor, a.log is held and b.log polled; once a.log is deleted and
// closed, b.log is held, and a line written after its rename to a name no
// glob matches still arrives through the held descriptor.
func TestPolledFileIsHeldOnceThereIsRoom(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.log"), filepath.Join(dir, "b.log")
	writeFile(t, a, "a-1\n")
	wb := createFile(t, b)
	defer wb.Close()
	writeLines(t, wb, "b-1")
	h := startFollower(t, Options{Sources: []Source{{Tag: "app", Globs: []string{filepath.Join(dir, "*.log")}}},
		Backstop: 50 * time.Millisecond, MaxOpenFiles: 1})
	mustDo(t, os.Remove(a))
	writeLines(t, wb, "b-2")
	h.waitText("b-2")
	time.Sleep(time.Second) // many backstops: a.log closed as idle, b.log held
	mustDo(t, os.Rename(b, filepath.Join(dir, "b.old")))
	writeLines(t, wb, "b-3 after the rotation")
	h.waitText("b-3 after the rotation")
}
