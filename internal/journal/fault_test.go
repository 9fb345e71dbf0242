//go:build watchdogdebug

package journal

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestInjectedFault: while the fault file exists every Write fails with
// ErrInjectedFault and leaves the journal as it was; once it is gone,
// writes go on where they stopped.
func TestInjectedFault(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fault := filepath.Join(dir, "fault")
	j, err := Open(filepath.Join(dir, "state"), Options{drill: drill{FaultFile: fault}})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	steps := []struct {
		fault   bool
		wantErr error
		want    []string // every detail in the journal after the write
	}{
		{false, nil, []string{"0"}},
		{true, ErrInjectedFault, []string{"0"}},
		{true, ErrInjectedFault, []string{"0"}},
		{false, nil, []string{"0", "3"}},
	}
	for i, s := range steps {
		if s.fault {
			if err := os.WriteFile(fault, nil, 0o600); err != nil {
				t.Fatal(err)
			}
		} else if err := os.Remove(fault); err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
		if err := j.Write(event(i)); !errors.Is(err, s.wantErr) || (s.wantErr == nil) != (err == nil) {
			t.Fatalf("step %d: Write = %v, want %v", i, err, s.wantErr)
		}
		if got := details(t, filepath.Join(dir, "state")); !slices.Equal(got, s.want) {
			t.Fatalf("step %d: journal holds %v, want %v", i, got, s.want)
		}
	}
}

// obstacle makes the next rotation fail and returns what clears it.
type obstacle func(t *testing.T, j *Journal, dir, fault string) (clear func())

// reopenFails: the file is renamed away, then the new one cannot be opened.
func reopenFails(t *testing.T, j *Journal, _, fault string) func() {
	if err := os.WriteFile(fault, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	// Write checks the fault before rotating: rotate here, as a Write
	// would, so that the reopen itself meets the fault.
	j.mu.Lock()
	err := j.rotate()
	j.mu.Unlock()
	if !errors.Is(err, ErrInjectedFault) {
		t.Fatalf("rotate = %v, want ErrInjectedFault", err)
	}
	return func() { os.Remove(fault) }
}

// renameFails: a non-empty directory where the rotated file goes; even
// root cannot rename a file over it.
func renameFails(t *testing.T, _ *Journal, dir, _ string) func() {
	if err := os.MkdirAll(filepath.Join(dir, FileName+".1", "x"), 0o700); err != nil {
		t.Fatal(err)
	}
	return func() { os.RemoveAll(filepath.Join(dir, FileName+".1")) }
}

// TestFailedRotationIsRetried: a rotation that fails half-way (the old
// file closed, the new one not open) is a failed Write, not the end of the
// journal: once the obstacle is gone the next Write opens the file again,
// and every line written is kept exactly once. Only Close is final.
func TestFailedRotationIsRetried(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		obstruct obstacle
	}{
		{"reopen after the rename fails", reopenFails},
		{"the rename fails", renameFails},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			rotateThrough(t, c.obstruct)
		})
	}
}

func rotateThrough(t *testing.T, obstruct obstacle) {
	dir, fault := t.TempDir(), filepath.Join(t.TempDir(), "fault")
	j, err := Open(dir, Options{MaxBytes: 400, Keep: 1, drill: drill{FaultFile: fault}})
	if err != nil {
		t.Fatal(err)
	}
	var written []string
	failed := 0
	write := func(from, to int) {
		for i := from; i < to; i++ {
			if err := j.Write(event(i)); err != nil {
				failed++
				continue
			}
			written = append(written, fmt.Sprint(i))
		}
	}
	write(0, 3)
	clear := obstruct(t, j, dir, fault)
	write(3, 10)
	if failed == 0 {
		t.Fatal("no Write failed while the rotation was obstructed")
	}
	clear()
	before := failed
	write(10, 14)
	if failed != before {
		t.Fatalf("%d Writes failed after the obstacle was gone", failed-before)
	}
	j.Close()
	if err := j.Write(event(99)); !errors.Is(err, ErrClosed) {
		t.Fatalf("Write after Close = %v, want ErrClosed", err)
	}
	// Keep is 1: older lines may be rotated away, but what is kept is the
	// newest written lines, in order, none twice.
	got := details(t, dir)
	if len(got) == 0 || !slices.Equal(got, written[len(written)-len(got):]) {
		t.Fatalf("journal holds %v, want the tail of %v", got, written)
	}
}

// TestUnencodableEvent: an event JSON cannot carry is ErrUnencodable (a
// caller that retries failed writes must not retry it) and writes nothing.
func TestUnencodableEvent(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	j, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	bad := event(1)
	bad.Extra = map[string]any{"ratio": math.NaN()}
	if err := j.Write(bad); !errors.Is(err, ErrUnencodable) {
		t.Fatalf("Write = %v, want ErrUnencodable", err)
	}
	if err := j.Write(event(2)); err != nil {
		t.Fatal(err)
	}
	if got := details(t, dir); !slices.Equal(got, []string{"2"}) {
		t.Fatalf("journal holds %v, want [2]", got)
	}
}

// details reads every journal file of dir (rotated ones first, oldest
// first) and returns the events' details in file order.
func details(t *testing.T, dir string) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, FileName+".*"))
	slices.Sort(files)
	slices.Reverse(files)
	var out []string
	for _, p := range append(files, filepath.Join(dir, FileName)) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range splitLines(b) {
			rec, err := Decode(line)
			if err != nil {
				t.Fatalf("%s: %q: %v", p, line, err)
			}
			out = append(out, rec.Detail)
		}
	}
	return out
}
