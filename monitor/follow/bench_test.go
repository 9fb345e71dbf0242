package follow

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"
)

// BenchmarkLineLatency measures the time from writing a line to a followed
// file to receiving it from Lines. "isolated" lines come after a quiet
// spell longer than Debounce, as most log lines do, and are handled at
// once; "back-to-back" lines each follow the previous delivery at once, so
// they wait out the Debounce that paces passes.
func BenchmarkLineLatency(b *testing.B) {
	for _, tc := range []struct {
		name  string
		pause time.Duration
	}{
		{"isolated", 2 * DefaultDebounce},
		{"back-to-back", 0},
	} {
		b.Run(tc.name, func(b *testing.B) { benchLatency(b, tc.pause) })
	}
}

func benchLatency(b *testing.B, pause time.Duration) {
	dir := b.TempDir()
	w, err := os.OpenFile(filepath.Join(dir, "app.log"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	f := runForBench(b, Options{Sources: logGlob(dir), Backstop: longBackstop})
	var took []time.Duration
	line := make([]byte, 0, 64)
	for i := 0; b.Loop(); i++ {
		if pause > 0 {
			b.StopTimer()
			time.Sleep(pause)
			b.StartTimer()
		}
		line = strconv.AppendInt(append(line[:0], "latency line "...), int64(i), 10)
		start := time.Now()
		if _, err := w.Write(append(line, '\n')); err != nil {
			b.Fatal(err)
		}
		l := <-f.Lines()
		took = append(took, time.Since(start))
		if string(l.Text) != string(line) {
			b.Fatalf("got %q, want %q", l.Text, line)
		}
		f.Ack(l.Pos)
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(took[len(took)*99/100].Microseconds()), "p99-µs")
}

// BenchmarkNewFileLatency measures the time from a new log file's first
// line to receiving it, while the follower also follows 175 files of 25
// other sources' globs in one directory (as `make bench`'s latency row
// at 200 files and 50 servers does): a file's creation makes a pass glob
// again, and what that costs grows with everything else followed.
func BenchmarkNewFileLatency(b *testing.B) {
	dir := b.TempDir()
	others := filepath.Join(dir, "others")
	mustDo(b, os.MkdirAll(others, 0o700))
	var sources []Source
	for s := range 25 {
		for f := s; f < 175; f += 25 {
			writeFile(b, filepath.Join(others, "s"+strconv.Itoa(s)+"-f"+strconv.Itoa(f)+".log"), "started\n")
		}
		sources = append(sources, Source{Tag: "other", Globs: []string{filepath.Join(others, "s"+strconv.Itoa(s)+"-f*.log")}})
	}
	fresh := filepath.Join(dir, "fresh")
	mustDo(b, os.MkdirAll(fresh, 0o700))
	for i := range 25 {
		sources = append(sources, Source{Tag: "fresh", Globs: []string{filepath.Join(fresh, "server"+strconv.Itoa(i)+".log")}})
	}
	f := runForBench(b, Options{Sources: sources, Backstop: longBackstop, MaxOpenFiles: 4096})
	drain := func(want string) Line {
		for l := range f.Lines() {
			f.Ack(l.Pos)
			if string(l.Text) == want {
				return l
			}
		}
		b.Fatal("lines closed")
		return Line{}
	}
	var took []time.Duration
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		path := filepath.Join(fresh, "server"+strconv.Itoa(i%25)+".log")
		_ = os.Remove(path)
		time.Sleep(2 * DefaultDebounce) // the removal's pass, then a quiet spell
		b.StartTimer()
		line := "first line " + strconv.Itoa(i)
		start := time.Now()
		writeFile(b, path, line+"\n")
		drain(line)
		took = append(took, time.Since(start))
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(took[len(took)*99/100].Microseconds()), "p99-µs")
}

// runForBench starts a follower whose lines the benchmark reads itself
// (startFollower's harness reads them) and returns once its start-up scan
// is done; it stops when the benchmark ends.
func runForBench(b *testing.B, opts Options) *Follower {
	f, err := New(opts)
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	runErr := make(chan error, 1)
	go func() { runErr <- f.Run(ctx) }()
	b.Cleanup(func() {
		cancel()
		if err := <-runErr; err != nil {
			b.Error(err)
		}
	})
	<-f.scanned
	return f
}
