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
	f, err := New(Options{Sources: logGlob(dir), Backstop: longBackstop})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	runErr := make(chan error, 1)
	go func() { runErr <- f.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-runErr; err != nil {
			b.Error(err)
		}
	}()
	<-f.scanned
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
