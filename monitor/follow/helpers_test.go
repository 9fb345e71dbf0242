package follow

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// waitFor is how long a test waits for something that should happen soon;
// generous for a loaded 2-core machine running -race.
const waitFor = 30 * time.Second

// longBackstop keeps the backstop out of tests that exercise events.
const longBackstop = time.Hour

// harness runs a Follower and collects what it delivers, acking each line.
type harness struct {
	t      testing.TB
	f      *Follower
	cancel context.CancelFunc
	runErr chan error
	done   chan struct{} // collector finished

	mu    sync.Mutex
	lines []Line
	warns []warning
	slow  func(n int) // called before each line is recorded; may sleep
}

type warning struct {
	tag, path string
	err       error
}

// startFollower starts Run and returns once its start-up scan is done.
func startFollower(t testing.TB, opts Options) *harness {
	t.Helper()
	h := &harness{t: t, runErr: make(chan error, 1), done: make(chan struct{})}
	if opts.Warn == nil {
		opts.Warn = func(tag, path string, err error) {
			h.mu.Lock()
			h.warns = append(h.warns, warning{tag, path, err})
			h.mu.Unlock()
		}
	}
	f, err := New(opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	h.f = f
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel = cancel
	go func() { h.runErr <- f.Run(ctx) }()
	go h.collect()
	t.Cleanup(h.stop)
	select {
	case <-f.scanned:
	case <-time.After(waitFor):
		t.Fatalf("follower did not finish its start-up scan")
	}
	return h
}

func (h *harness) collect() {
	defer close(h.done)
	for l := range h.f.Lines() {
		h.mu.Lock()
		h.lines = append(h.lines, l)
		n, slow := len(h.lines), h.slow
		h.mu.Unlock()
		if slow != nil {
			slow(n)
		}
		h.f.Ack(l.Pos)
	}
}

// stop ends Run, drains the lines still buffered and saves their acks.
func (h *harness) stop() {
	h.cancel()
	select {
	case err := <-h.runErr:
		if err != nil {
			h.t.Errorf("Run: %v", err)
		}
		h.runErr <- nil // stop is idempotent
	case <-time.After(waitFor):
		h.t.Fatalf("Run did not return")
	}
	<-h.done
	if err := h.f.Flush(); err != nil {
		h.t.Errorf("Flush: %v", err)
	}
}

func (h *harness) got() []Line {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]Line(nil), h.lines...)
}

func (h *harness) warnings() []warning {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]warning(nil), h.warns...)
}

// waitUntil polls cond until it holds or waitFor passes.
func waitUntil(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitFor)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// waitText waits until a line with text has been delivered.
func (h *harness) waitText(text string) {
	h.t.Helper()
	waitUntil(h.t, fmt.Sprintf("line %q", text), func() bool {
		h.mu.Lock()
		defer h.mu.Unlock()
		for _, l := range h.lines {
			if string(l.Text) == text {
				return true
			}
		}
		return false
	})
}

func (h *harness) waitCount(n int) {
	h.t.Helper()
	waitUntil(h.t, fmt.Sprintf("%d lines", n), func() bool { return h.count() >= n })
}

func (h *harness) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.lines)
}

func texts(ls []Line) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = string(l.Text)
	}
	return out
}

func lineList(prefix string, from, to int) []string {
	var out []string
	for i := from; i <= to; i++ {
		out = append(out, fmt.Sprintf("%s%d", prefix, i))
	}
	return out
}

func joinLines(ls []string) string {
	if len(ls) == 0 {
		return ""
	}
	return strings.Join(ls, "\n") + "\n"
}

func appendFile(t testing.TB, path, data string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(data); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t testing.TB, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mustDo(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// checkOrderPerFile asserts that each file's lines came in offset order.
func checkOrderPerFile(t testing.TB, ls []Line) {
	t.Helper()
	last := map[string]int64{}
	for _, l := range ls {
		if l.Pos.Offset <= last[l.Pos.Fingerprint] {
			t.Fatalf("line %q at offset %d after offset %d of the same file", l.Text, l.Pos.Offset, last[l.Pos.Fingerprint])
		}
		last[l.Pos.Fingerprint] = l.Pos.Offset
	}
}

func logGlob(dir string) []Source {
	return []Source{{Tag: "t", Globs: []string{filepath.Join(dir, "*.log")}}}
}

func isLineTooLong(w warning) bool { return errors.Is(w.err, ErrLineTooLong) }

func appendInt(b []byte, i int) []byte { return strconv.AppendInt(b, int64(i), 10) }

// waitBriefly stands for a consumer busy with something else.
func waitBriefly() { time.Sleep(2 * time.Millisecond) }
