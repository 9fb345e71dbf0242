package follow

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// logWriter writes numbered lines to dir/app.log without pause, rotating
// it twice (app.log → app.log.1 → app.log.2) on the way.
type logWriter struct {
	t       testing.TB
	dir     string
	rotate  []int // rotate after this many lines
	mu      sync.Mutex
	n       int
	f       *os.File
	stop    chan struct{}
	stopped chan struct{}
}

func startLogWriter(t testing.TB, dir string, pre int, rotate ...int) *logWriter {
	w := &logWriter{t: t, dir: dir, rotate: rotate, stop: make(chan struct{}), stopped: make(chan struct{})}
	f, err := os.OpenFile(w.path(), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	mustDo(t, err)
	w.f = f
	w.write(pre) // there before the first start
	go w.run()
	return w
}

func (w *logWriter) path() string { return filepath.Join(w.dir, "app.log") }

func (w *logWriter) run() {
	defer close(w.stopped)
	for {
		select {
		case <-w.stop:
			return
		case <-time.After(time.Millisecond):
		}
		w.write(3)
		if len(w.rotate) > 0 && w.count() >= w.rotate[0] {
			w.rotate = w.rotate[1:]
			w.doRotate()
		}
	}
}

func (w *logWriter) write(k int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	var b []byte
	for range k {
		b = fmt.Appendf(b, "line-%06d and some padding to make lines of a realistic length\n", w.n)
		w.n++
	}
	if _, err := w.f.Write(b); err != nil {
		w.t.Errorf("writer: %v", err)
	}
}

func (w *logWriter) doRotate() {
	w.mu.Lock()
	defer w.mu.Unlock()
	p := w.path()
	if _, err := os.Stat(p + ".1"); err == nil {
		mustDo(w.t, os.Rename(p+".1", p+".2"))
	}
	mustDo(w.t, os.Rename(p, p+".1"))
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o644)
	mustDo(w.t, err)
	mustDo(w.t, w.f.Close())
	w.f = f
}

func (w *logWriter) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.n
}

// finish stops writing and returns how many lines were written.
func (w *logWriter) finish() int {
	close(w.stop)
	<-w.stopped
	mustDo(w.t, w.f.Close())
	return w.count()
}

// checkExactlyOnce asserts that lines line-000000 … line-(n-1) each came
// once, in order within each file.
func checkExactlyOnce(t testing.TB, texts []string, fps []string, n int) {
	t.Helper()
	seen := make(map[int]int)
	last := make(map[string]int)
	for i, text := range texts {
		var id int
		if _, err := fmt.Sscanf(text, "line-%06d", &id); err != nil {
			t.Fatalf("unexpected line %q", text)
		}
		seen[id]++
		if prev, ok := last[fps[i]]; ok && id <= prev {
			t.Fatalf("line %d after line %d of the same file", id, prev)
		}
		last[fps[i]] = id
	}
	for id := range n {
		if seen[id] != 1 {
			t.Fatalf("line %d delivered %d times (%d lines in all, %d written)", id, seen[id], len(texts), n)
		}
	}
	if len(texts) != n {
		t.Fatalf("%d lines delivered, %d written", len(texts), n)
	}
}

// TestKillRestart: a consumer that stores each Position with its output and
// passes them back as Resume gets every line exactly once, though it is
// killed with SIGKILL at random points while the log is written and rotated.
func TestKillRestart(t *testing.T) {
	t.Parallel()
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, seed))
	logs, work := t.TempDir(), t.TempDir()
	out := filepath.Join(work, "out.jsonl")
	env := []string{childDirEnv + "=" + logs, childOutEnv + "=" + out, childCkpEnv + "=" + filepath.Join(work, "checkpoint.json")}
	bin, err := os.Executable()
	mustDo(t, err)

	w := startLogWriter(t, logs, 50, 600, 1200)
	for range 6 {
		c := startChild(t, bin, "consumer", env, nil)
		time.Sleep(time.Duration(100+rng.IntN(600)) * time.Millisecond)
		c.kill()
	}
	n := w.finish()
	c := startChild(t, bin, "consumer", env, nil)
	c.waitOutput("child ready", hasPrefixFn("READY"))
	waitUntil(t, fmt.Sprintf("%d lines in the output", n), func() bool {
		recs, err := readRecords(out, false)
		return err == nil && len(recs) >= n
	})
	c.stop()
	recs, err := readRecords(out, false)
	mustDo(t, err)
	var texts, fps []string
	for _, r := range recs {
		texts = append(texts, r.Text)
		fps = append(fps, r.Pos.Fingerprint)
	}
	checkExactlyOnce(t, texts, fps, n)
}

// TestGracefulRestart: with the checkpoint alone, stopping and starting
// again loses and repeats nothing, whether the consumer handles the lines
// still buffered at the stop or leaves them.
func TestGracefulRestart(t *testing.T) {
	t.Parallel()
	for _, drain := range []bool{true, false} {
		t.Run(fmt.Sprintf("drain=%v", drain), func(t *testing.T) {
			t.Parallel()
			logs := t.TempDir()
			ckpt := filepath.Join(t.TempDir(), "checkpoint.json")
			var texts, fps []string
			cycle := func(until func() bool) {
				f, err := New(Options{
					Sources:        []Source{{Tag: "t", Globs: []string{filepath.Join(logs, "app.log*")}}},
					CheckpointFile: ckpt,
					Backstop:       longBackstop,
				})
				mustDo(t, err)
				ctx, cancel := context.WithCancel(context.Background())
				runErr := make(chan error, 1)
				go func() { runErr <- f.Run(ctx) }()
				consume(ctx, f, drain, &texts, &fps, until, cancel)
				mustDo(t, <-runErr)
				mustDo(t, f.Flush())
			}
			w := startLogWriter(t, logs, 20, 150)
			for range 4 {
				target := len(texts) + 60
				cycle(func() bool { return len(texts) >= target })
			}
			n := w.finish()
			cycle(func() bool { return len(texts) >= n })
			checkExactlyOnce(t, texts, fps, n)
		})
	}
}

// consume records lines and acks them until done holds, then cancels. With
// drain it keeps handling what is buffered until Lines closes; without, it
// stops at once and leaves the rest.
func consume(ctx context.Context, f *Follower, drain bool, texts, fps *[]string, done func() bool, cancel func()) {
	handle := func(l Line) {
		*texts = append(*texts, string(l.Text))
		*fps = append(*fps, l.Pos.Fingerprint)
		f.Ack(l.Pos)
	}
	deadline := time.After(waitFor)
	for ctx.Err() == nil {
		select {
		case l, ok := <-f.Lines():
			if !ok {
				return
			}
			handle(l)
		case <-deadline:
			cancel()
		case <-ctx.Done():
		}
		if done() {
			cancel()
		}
	}
	if drain {
		for l := range f.Lines() {
			handle(l)
		}
	}
}
