//go:build unix

package journal

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
)

// shortWriteEnv names the journal directory shortWriteChild writes into;
// set only for the child TestShortWriteMidRunIsMended starts.
const shortWriteEnv = "WATCHDOG_JOURNAL_TEST_SHORT_WRITE_DIR"

// A disk that fills mid-write leaves part of a line (issue 15). The write
// fails and the daemon retries the event; the retry was glued onto the
// fragment, and that line, the retried event with it, could not be read
// back. The fragment now stays a line of its own. A file size limit
// (RLIMIT_FSIZE) makes the kernel's write short, as a full disk does; it
// is set in a child process, so no other test's writes are cut.
func TestShortWriteMidRunIsMended(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "state")
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), shortWriteEnv+"="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	recs, err := ReadTail(dir, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range recs {
		got = append(got, r.Detail)
	}
	if want := []string{"0", "1", "2"}; !slices.Equal(got, want) {
		t.Fatalf("read back %q, want %q: the retried event was lost with the fragment", got, want)
	}
	b, err := os.ReadFile(filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	if lines := splitLines(b); len(lines) != 4 {
		t.Fatalf("%d lines, want 4 (the fragment kept as a line of its own):\n%s", len(lines), b)
	}
}

// TestMain runs shortWriteChild instead of the tests when the parent
// test started this binary as that child.
func TestMain(m *testing.M) {
	if dir := os.Getenv(shortWriteEnv); dir != "" {
		os.Exit(shortWriteChild(dir))
	}
	os.Exit(m.Run())
}

// shortWriteChild is TestShortWriteMidRunIsMended's child, a process of
// its own and no test: it writes one event, has the next cut short by a
// file size limit, lifts the limit and writes the failed event again,
// then one more. It exits 0 when each step did what it should.
func shortWriteChild(dir string) int {
	if err := shortWrites(dir); err != nil {
		fmt.Fprintln(os.Stderr, "short-write child:", err)
		return 1
	}
	return 0
}

func shortWrites(dir string) error {
	signal.Ignore(syscall.SIGXFSZ) // else the limit kills the process
	j, err := Open(dir, Options{})
	if err != nil {
		return err
	}
	defer j.Close()
	if err := j.Write(event(0)); err != nil {
		return err
	}
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		return err
	}
	cut := lim
	cut.Cur = uint64(j.size) + 10
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &cut); err != nil {
		return err
	}
	werr := j.Write(event(1))
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		return err
	}
	if werr == nil {
		return errors.New("the write past the file size limit did not fail")
	}
	for _, i := range []int{1, 2} {
		if err := j.Write(event(i)); err != nil {
			return err
		}
	}
	return nil
}
