package dirwatch

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
)

func startHub(t *testing.T) *Hub {
	t.Helper()
	h, err := Start(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close() })
	return h
}

func mkdir(t *testing.T, parts ...string) string {
	t.Helper()
	d := filepath.Join(parts...)
	if err := os.MkdirAll(d, 0o700); err != nil {
		t.Fatal(err)
	}
	return d
}

func touch(t *testing.T, path string) {
	t.Helper()
	if err := os.WriteFile(path, []byte("x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

// next waits for the next event on w that names path.
func next(t *testing.T, w *Watcher, path string) fsnotify.Event {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		select {
		case ev, ok := <-w.Events:
			if !ok {
				t.Fatalf("events closed while waiting for %s", path)
			}
			if filepath.Clean(ev.Name) == path {
				return ev
			}
		case err := <-w.Errors:
			t.Fatalf("error while waiting for %s: %v", path, err)
		case <-deadline:
			t.Fatalf("no event for %s", path)
		}
	}
}

// quiet asserts that w is told nothing of path for a while.
func quiet(t *testing.T, w *Watcher, path string) {
	t.Helper()
	deadline := time.After(200 * time.Millisecond)
	for {
		select {
		case ev := <-w.Events:
			if filepath.Clean(ev.Name) == path {
				t.Fatalf("told of %v, which it does not watch", ev)
			}
		case err := <-w.Errors:
			t.Fatalf("unexpected error %v", err)
		case <-deadline:
			return
		}
	}
}

func TestEachWatcherHearsItsOwnDirectories(t *testing.T) {
	h := startHub(t)
	root := t.TempDir()
	a, b := mkdir(t, root, "a"), mkdir(t, root, "b")
	wa, wb := h.Watch(), h.Watch()
	for _, c := range []struct {
		w   *Watcher
		dir string
	}{{wa, a}, {wb, b}} {
		if err := c.w.Add(c.dir); err != nil {
			t.Fatal(err)
		}
	}
	touch(t, filepath.Join(a, "f"))
	next(t, wa, filepath.Join(a, "f"))
	quiet(t, wb, filepath.Join(a, "f"))
	touch(t, filepath.Join(b, "g"))
	next(t, wb, filepath.Join(b, "g"))
	quiet(t, wa, filepath.Join(b, "g"))
}

func TestSharedDirectoryOutlivesOneRemove(t *testing.T) {
	h := startHub(t)
	dir := mkdir(t, t.TempDir(), "shared")
	w1, w2 := h.Watch(), h.Watch()
	for _, w := range []*Watcher{w1, w2} {
		if err := w.Add(dir); err != nil {
			t.Fatal(err)
		}
	}
	touch(t, filepath.Join(dir, "one"))
	next(t, w1, filepath.Join(dir, "one"))
	next(t, w2, filepath.Join(dir, "one"))

	if err := w1.Remove(dir); err != nil {
		t.Fatal(err)
	}
	if got := w1.WatchList(); len(got) != 0 {
		t.Errorf("w1 still lists %v after Remove", got)
	}
	if got := w2.WatchList(); !slices.Equal(got, []string{dir}) {
		t.Errorf("w2 lists %v, want [%s]", got, dir)
	}
	touch(t, filepath.Join(dir, "two"))
	next(t, w2, filepath.Join(dir, "two"))
	quiet(t, w1, filepath.Join(dir, "two"))

	if err := w1.Remove(dir); !errors.Is(err, fsnotify.ErrNonExistentWatch) {
		t.Errorf("second Remove: %v, want ErrNonExistentWatch", err)
	}
	_ = w2.Close()
	if got := h.fw.WatchList(); len(got) != 0 {
		t.Errorf("the kernel watch outlived its last Watcher: %v", got)
	}
}

// A directory removed takes its watch with it: WatchList says so, and an
// Add once it is back watches again. The stores and the follower rely on
// this to re-arm.
func TestRemovedDirectoryLeavesWatchList(t *testing.T) {
	h := startHub(t)
	dir := mkdir(t, t.TempDir(), "d")
	w := h.Watch()
	if err := w.Add(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	next(t, w, dir)
	deadline := time.Now().Add(5 * time.Second)
	for len(w.WatchList()) != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("WatchList still %v after the directory went", w.WatchList())
		}
		time.Sleep(10 * time.Millisecond)
	}
	mkdir(t, dir)
	if err := w.Add(dir); err != nil {
		t.Fatal(err)
	}
	touch(t, filepath.Join(dir, "back"))
	next(t, w, filepath.Join(dir, "back"))
}

// A reader that does not read loses events, is told so by an overflow
// (so it looks again, as after a kernel overflow), and holds no other
// reader up for longer than stallLimit.
func TestStalledReaderGetsOverflowAndStallsNoOne(t *testing.T) {
	h := startHub(t)
	root := t.TempDir()
	slow, fast := mkdir(t, root, "slow"), mkdir(t, root, "fast")
	ws, wf := h.Watch(), h.Watch()
	if err := ws.Add(slow); err != nil {
		t.Fatal(err)
	}
	if err := wf.Add(fast); err != nil {
		t.Fatal(err)
	}
	for i := range eventBuffer * 2 {
		touch(t, filepath.Join(slow, "f"+string(rune('a'+i%26))+string(rune('a'+i/26))))
	}
	touch(t, filepath.Join(fast, "now"))
	next(t, wf, filepath.Join(fast, "now"))
	select {
	case err := <-ws.Errors:
		if !errors.Is(err, fsnotify.ErrEventOverflow) {
			t.Fatalf("stalled reader told %v, want ErrEventOverflow", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the stalled reader was never told it lost events")
	}
}

func TestCloseEndsEveryWatcher(t *testing.T) {
	h, err := Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	w := h.Watch()
	if err := w.Add(t.TempDir()); err != nil {
		t.Fatal(err)
	}
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	_ = h.Close() // twice is fine
	if _, ok := <-w.Events; ok {
		t.Error("events still open after the hub closed")
	}
	if _, ok := <-w.Errors; ok {
		t.Error("errors still open after the hub closed")
	}
	late := h.Watch()
	if _, ok := <-late.Events; ok {
		t.Error("a Watcher made after Close has open events")
	}
	if err := late.Add(t.TempDir()); !errors.Is(err, ErrClosed) {
		t.Errorf("Add after Close: %v, want ErrClosed", err)
	}
}

// Open without a hub gives a Watcher that lives until its own Close, not
// until ctx ends, as an fsnotify.Watcher does.
func TestOpenWithoutHubLivesUntilClose(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	w, err := Open(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := w.Add(dir); err != nil {
		t.Fatal(err)
	}
	cancel()
	touch(t, filepath.Join(dir, "after"))
	next(t, w, filepath.Join(dir, "after"))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	drained(t, w)
}

// drained asserts that w's events end, once what was queued is read.
func drained(t *testing.T, w *Watcher) {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		select {
		case _, ok := <-w.Events:
			if !ok {
				return
			}
		case <-deadline:
			t.Fatal("events still open after Close of a Watcher with its own hub")
		}
	}
}
