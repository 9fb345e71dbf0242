package doctor

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestDoctorStepTimesOut: a step stuck where no context reaches (open(2)
// of a FIFO with no writer) is reported as timed out under its name, and
// the steps after it still run.
func TestDoctorStepTimesOut(t *testing.T) {
	t.Parallel()
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { // a writer lets the stuck open return
		if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
	})
	rep := &Report{}
	steps := []step{
		{"stuck", func(_ context.Context, r *Report) {
			if f, err := os.Open(fifo); err == nil {
				f.Close()
			}
			r.Add(Finding{Check: "stuck", OK: true, Detail: "came back"})
		}},
		{"next", func(_ context.Context, r *Report) { r.Add(Finding{Check: "next", OK: true, Detail: "ran"}) }},
	}
	began := time.Now()
	runSteps(context.Background(), rep, steps, 300*time.Millisecond)
	if took := time.Since(began); took > 5*time.Second {
		t.Fatalf("steps took %v", took)
	}
	if len(rep.Findings) != 2 || rep.Findings[1].Detail != "ran" {
		t.Fatalf("findings %+v; want the stuck step's timeout, then the next step's", rep.Findings)
	}
	f := rep.Findings[0]
	if f.Check != "stuck" || !f.Problem || !strings.Contains(f.Detail, "timed out after 300ms") {
		t.Fatalf("the stuck step's finding %+v; want a problem saying it timed out", f)
	}
}
