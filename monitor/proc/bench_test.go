//go:build unix

package proc

import (
	"context"
	"os"
	"syscall"
	"testing"
	"time"
)

// The idle cost of Watch is one of these per Interval (2 s by default):
// alive while the host runs, a name scan plus the port check while it does
// not. The budget is CPU time, not wall time (reads of /proc may wait), so
// each benchmark also reports cpu-ns/op from getrusage.

func BenchmarkAlive(b *testing.B) {
	self, ok := hostOf(context.Background(), int32(os.Getpid()))
	if !ok {
		b.Fatal("cannot read own process")
	}
	measureCPU(b, func() {
		if ok, err := Alive(context.Background(), self); !ok || err != nil {
			b.Fatalf("alive = %v, %v", ok, err)
		}
	})
}

func BenchmarkFindByNameAbsent(b *testing.B) {
	t := Target{Name: "wdproc-bench-absent-" + time.Now().Format("150405.000000")}
	measureCPU(b, func() {
		if _, found, err := Find(context.Background(), t); found || err != nil {
			b.Fatalf("found=%v err=%v", found, err)
		}
	})
}

func BenchmarkFindByPortAbsent(b *testing.B) {
	t := Target{Port: 1} // tcpmux: nothing listens there on a test machine
	measureCPU(b, func() {
		if _, found, err := Find(context.Background(), t); found || err != nil {
			b.Fatalf("found=%v err=%v", found, err)
		}
	})
}

// measureCPU runs fn b.N times and reports the process CPU time per call.
func measureCPU(b *testing.B, fn func()) {
	b.Helper()
	before := cpuTime(b)
	for b.Loop() {
		fn()
	}
	b.ReportMetric(float64((cpuTime(b)-before).Nanoseconds())/float64(b.N), "cpu-ns/op")
}

func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
