package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

var (
	sA = Session{ID: idA, Client: "dsh-mcp-client", LastActivity: t0930, Created: t0800}
	sB = Session{ID: idB, Client: "claude-code", LastActivity: t0930, Created: t0800}
	sC = Session{ID: idC, Client: "cursor", LastActivity: t0930, Created: t0800}
)

func storePath(t *testing.T) string {
	return filepath.Join(t.TempDir(), "co.nowledge.mem.desktop", "mcp-sessions.json")
}

func mkStore(t *testing.T, data []byte) string {
	t.Helper()
	path := storePath(t)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if data != nil {
		writeFile(t, path, data)
	}
	return path
}

func TestWatcherInitialUpdate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		content []byte // nil: no file
		check   func(t *testing.T, u Update, path string)
	}{
		{"good file", storeJSON(t, sA, sB), func(t *testing.T, u Update, path string) {
			if u.Snapshot == nil {
				t.Fatalf("want a snapshot, got %s", describeUpdates([]Update{u}))
			}
			assertSessions(t, u.Snapshot.Sessions, []Session{sA, sB})
			if u.Snapshot.Path != path || u.Path != path || !u.Snapshot.ReadAt.Equal(fixedNow) {
				t.Errorf("Path %q/%q ReadAt %v, want %q and the injected clock", u.Path, u.Snapshot.Path, u.Snapshot.ReadAt, path)
			}
		}},
		{"empty store is zero sessions", []byte("{}"), func(t *testing.T, u Update, _ string) {
			if u.Snapshot == nil || len(u.Snapshot.Sessions) != 0 {
				t.Fatalf("want an empty snapshot, got %s", describeUpdates([]Update{u}))
			}
		}},
		{"no file", nil, func(t *testing.T, u Update, path string) {
			if !u.Gone || u.Snapshot != nil || u.Err != nil || u.Path != path {
				t.Fatalf("want Gone for %s, got %s", path, describeUpdates([]Update{u}))
			}
		}},
		{"empty file is an error", []byte{}, func(t *testing.T, u Update, path string) {
			if !errors.Is(u.Err, ErrNotJSON) || !strings.Contains(u.Err.Error(), path) {
				t.Fatalf("want ErrNotJSON naming %s, got %s", path, describeUpdates([]Update{u}))
			}
		}},
		{"half-written file is an error", storeJSON(t, sA, sB)[:80], func(t *testing.T, u Update, _ string) {
			if !errors.Is(u.Err, ErrNotJSON) || !strings.Contains(u.Err.Error(), "ends early") {
				t.Fatalf("want ErrNotJSON (ends early), got %s", describeUpdates([]Update{u}))
			}
		}},
		{"unknown shape is an error", []byte(`{"version": 3}`), func(t *testing.T, u Update, _ string) {
			if !errors.Is(u.Err, ErrUnknownShape) {
				t.Fatalf("want ErrUnknownShape, got %s", describeUpdates([]Update{u}))
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := mkStore(t, tt.content)
			h := startWatcher(t, Options{Path: path})
			tt.check(t, h.next(), path)
		})
	}
}

func TestWatcherTempRenameWrites(t *testing.T) {
	t.Parallel()
	path := mkStore(t, storeJSON(t, sA))
	h := startWatcher(t, Options{Path: path, Backstop: time.Hour})
	h.waitFor("first snapshot", snapshotWith(idA))

	touched := sA
	touched.LastActivity = t0930.Add(time.Minute)
	steps := []struct {
		sessions []Session
		ids      []string
	}{
		{[]Session{sA, sB}, []string{idA, idB}},
		{[]Session{touched, sB}, []string{idA, idB}},
		{[]Session{touched, sB, sC}, []string{idA, idB, idC}},
		{[]Session{sC}, []string{idC}},
	}
	for i, st := range steps {
		writeAtomic(t, path, storeJSON(t, st.sessions...))
		seen := h.waitFor("snapshot of step", snapshotWith(st.ids...))
		for _, u := range seen {
			if u.Snapshot == nil {
				t.Errorf("step %d: a rename write gave %s", i, describeUpdates([]Update{u}))
			}
		}
		assertSessions(t, seen[len(seen)-1].Snapshot.Sessions, st.sessions)
	}
}

func TestWatcherInPlaceTwoHalves(t *testing.T) {
	t.Parallel()
	path := mkStore(t, storeJSON(t, sA, sB))
	h := startWatcher(t, Options{Path: path, Backstop: time.Hour})
	h.waitFor("first snapshot", snapshotWith(idA, idB))

	next := storeJSON(t, sA, sB, sC)
	half := len(next) / 2
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(next[:half]); err != nil {
		t.Fatal(err)
	}
	seen := h.waitFor("error for the first half", isErr)
	for _, u := range seen {
		if u.Snapshot != nil {
			t.Fatalf("a half-written store gave a snapshot: %s", describeUpdates(seen))
		}
	}
	if u := seen[len(seen)-1]; !errors.Is(u.Err, ErrNotJSON) || !strings.Contains(u.Err.Error(), path) {
		t.Errorf("err = %v, want ErrNotJSON naming %s", u.Err, path)
	}

	if _, err := f.Write(next[half:]); err != nil {
		t.Fatal(err)
	}
	seen = h.waitFor("snapshot after the second half", isSnapshot)
	if len(seen) != 1 {
		t.Errorf("want only the snapshot (the error once), got %s", describeUpdates(seen))
	}
	assertSessions(t, seen[len(seen)-1].Snapshot.Sessions, []Session{sA, sB, sC})
}

func TestWatcherHalfWrittenStays(t *testing.T) {
	t.Parallel()
	retry := 50 * time.Millisecond
	full := storeJSON(t, sA, sB)
	path := mkStore(t, full)
	h := startWatcher(t, Options{Path: path, Retry: retry, Backstop: time.Hour})
	h.waitFor("first snapshot", snapshotWith(idA, idB))

	writeAtomic(t, path, full[:len(full)-10])
	seen := h.waitFor("error", isErr)
	if len(seen) != 1 {
		t.Errorf("want only the error, got %s", describeUpdates(seen))
	}
	// Retries go on; the error is not sent again, nor is any snapshot.
	h.quiet(10 * retry)

	writeAtomic(t, path, full)
	seen = h.waitFor("snapshot", isSnapshot)
	assertSessions(t, seen[len(seen)-1].Snapshot.Sessions, []Session{sA, sB})
}

func TestWatcherNotJSON(t *testing.T) {
	t.Parallel()
	path := mkStore(t, storeJSON(t, sA))
	h := startWatcher(t, Options{Path: path})
	h.waitFor("first snapshot", snapshotWith(idA))

	writeAtomic(t, path, []byte("<html><body>502 Bad Gateway</body></html>\n"))
	u := h.waitFor("error", isErr)[0]
	msg := u.Err.Error()
	for _, want := range []string{path, "not JSON", "invalid character '<'", "at byte 1"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not contain %q", msg, want)
		}
	}
	if !errors.Is(u.Err, ErrNotJSON) {
		t.Errorf("error does not wrap ErrNotJSON: %v", u.Err)
	}
}

func TestWatcherDeleteRecreate(t *testing.T) {
	t.Parallel()
	data := storeJSON(t, sA, sB)
	path := mkStore(t, data)
	h := startWatcher(t, Options{Path: path, Backstop: time.Hour})
	h.waitFor("first snapshot", snapshotWith(idA, idB))

	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if seen := h.waitFor("gone", isGone); len(seen) != 1 {
		t.Errorf("want only Gone, got %s", describeUpdates(seen))
	}
	writeFile(t, filepath.Join(filepath.Dir(path), "unrelated.json"), []byte("{}"))
	writeAtomic(t, path, data)
	// Gone was sent once: the next update is the same sessions again.
	u := h.next()
	if u.Snapshot == nil {
		t.Fatalf("want a snapshot after recreate, got %s", describeUpdates([]Update{u}))
	}
	assertSessions(t, u.Snapshot.Sessions, []Session{sA, sB})
}

func TestWatcherSameBytesNoUpdate(t *testing.T) {
	t.Parallel()
	data := storeJSON(t, sA)
	path := mkStore(t, data)
	h := startWatcher(t, Options{Path: path, Backstop: time.Hour})
	h.waitFor("first snapshot", snapshotWith(idA))

	writeAtomic(t, path, data)
	writeFile(t, path, data)
	if err := os.Chtimes(path, time.Now(), time.Now()); err != nil {
		t.Fatal(err)
	}
	time.Sleep(5 * DefaultDebounce) // let those events be read on their own
	writeAtomic(t, path, storeJSON(t, sA, sB))
	u := h.next()
	if !snapshotWith(idA, idB)(u) {
		t.Fatalf("rewriting the same bytes gave an update: %s", describeUpdates([]Update{u}))
	}
}

// TestWatcherNoFalseRemoved plays every disturbance a store sees and checks
// that the model, fed only snapshots, never sees a session removed until a
// good snapshot without it arrives.
func TestWatcherNoFalseRemoved(t *testing.T) {
	t.Parallel()
	good := storeJSON(t, sA, sB)
	path := mkStore(t, good)
	h := startWatcher(t, Options{Path: path, Retry: 50 * time.Millisecond, Backstop: time.Hour})
	var tr tracker
	tr.apply(h.waitFor("first snapshot", snapshotWith(idA, idB)))

	touched := sA
	touched.LastActivity = t0930.Add(time.Hour)
	steps := []struct {
		name  string
		do    func()
		until func(Update) bool
	}{
		{"rename write", func() { writeAtomic(t, path, storeJSON(t, touched, sB)) }, snapshotWith(idA, idB)},
		{"truncate in place", func() { writeFile(t, path, nil) }, isErr},
		{"write back", func() { writeFile(t, path, good) }, isSnapshot},
		{"half written", func() { writeFile(t, path, good[:len(good)/3]) }, isErr},
		{"write back", func() { writeFile(t, path, good) }, isSnapshot},
		{"not JSON", func() { writeAtomic(t, path, []byte("garbage")) }, isErr},
		{"write back", func() { writeAtomic(t, path, good) }, isSnapshot},
		{"unknown shape", func() { writeAtomic(t, path, []byte(`{"v":1}`)) }, isErr},
		{"write back", func() { writeAtomic(t, path, good) }, isSnapshot},
		{"delete", func() { os.Remove(path) }, isGone},
		{"recreate", func() { writeAtomic(t, path, good) }, isSnapshot},
		{"remove directory", func() { os.RemoveAll(filepath.Dir(path)) }, isGone},
		{"recreate directory", func() {
			os.MkdirAll(filepath.Dir(path), 0o700)
			writeAtomic(t, path, good)
		}, isSnapshot},
	}
	for _, st := range steps {
		st.do()
		seen := h.waitFor(st.name, st.until)
		tr.apply(seen)
		for _, u := range seen {
			if u.Snapshot != nil && len(u.Snapshot.Sessions) != 2 {
				t.Fatalf("%s: a snapshot lost sessions: %s", st.name, describeUpdates(seen))
			}
		}
		if len(tr.removed) != 0 {
			t.Fatalf("%s: the model saw %v removed", st.name, tr.removed)
		}
	}

	writeAtomic(t, path, storeJSON(t, sA))
	tr.apply(h.waitFor("snapshot without B", snapshotWith(idA)))
	if len(tr.removed) != 1 || tr.removed[0] != idB {
		t.Errorf("removed = %v, want only B", tr.removed)
	}
}

func TestWatcherSetPath(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	other := filepath.Join(t.TempDir(), "later", "mcp-sessions.json")
	writeFile(t, a, storeJSON(t, sA))
	writeFile(t, b, storeJSON(t, sB))

	h := startWatcher(t, Options{Backstop: time.Hour}) // no path yet
	h.w.SetPath(a)
	if u := h.next(); !snapshotWith(idA)(u) || u.Path != a {
		t.Fatalf("after SetPath(a): %s", describeUpdates([]Update{u}))
	}
	h.w.SetPath(b)
	if u := h.next(); !snapshotWith(idB)(u) || u.Path != b || u.Snapshot.Path != b {
		t.Fatalf("after SetPath(b): %s", describeUpdates([]Update{u}))
	}
	// The old file is no longer watched: its change comes first and is not seen.
	writeAtomic(t, a, storeJSON(t, sA, sC))
	writeAtomic(t, b, storeJSON(t, sB, sC))
	if u := h.next(); !snapshotWith(idB, idC)(u) || u.Path != b {
		t.Fatalf("after writing a then b: %s", describeUpdates([]Update{u}))
	}
	h.w.SetPath(other)
	if u := h.next(); !u.Gone || u.Path != other {
		t.Fatalf("after SetPath(missing): %s", describeUpdates([]Update{u}))
	}
	h.w.SetPath(other) // same path: nothing new
	if err := os.MkdirAll(filepath.Dir(other), 0o700); err != nil {
		t.Fatal(err)
	}
	writeAtomic(t, other, storeJSON(t, sC))
	if u := h.next(); !snapshotWith(idC)(u) || u.Path != other {
		t.Fatalf("after creating the new path: %s", describeUpdates([]Update{u}))
	}
	if h.w.Path() != other {
		t.Errorf("Path() = %q, want %q", h.w.Path(), other)
	}
}

func TestWatcherSetPathConcurrent(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	writeFile(t, a, storeJSON(t, sA))
	writeFile(t, b, storeJSON(t, sB))
	h := startWatcher(t, Options{Path: a})
	h.waitFor("first snapshot", snapshotWith(idA))

	// Drain while goroutines flip the path, then settle on b.
	stop := make(chan struct{})
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		for {
			select {
			case <-h.out:
			case <-stop:
				return
			}
		}
	}()
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			for j := range 50 {
				if (i+j)%2 == 0 {
					h.w.SetPath(a)
				} else {
					h.w.SetPath(b)
				}
			}
		})
	}
	wg.Wait()
	close(stop)
	<-drained
	h.w.SetPath(filepath.Join(dir, "c.json"))
	writeFile(t, filepath.Join(dir, "c.json"), storeJSON(t, sC))
	seen := h.waitFor("snapshot of c", func(u Update) bool { return snapshotWith(idC)(u) && strings.HasSuffix(u.Path, "c.json") })
	for _, u := range seen[:len(seen)-1] {
		if u.Path != a && u.Path != b && !strings.HasSuffix(u.Path, "c.json") {
			t.Errorf("update for an unknown path: %s", describeUpdates([]Update{u}))
		}
	}
}

func TestWatcherDirectoryCreatedLater(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		create func(t *testing.T, path string)
	}{
		{"one level at a time", func(t *testing.T, path string) {
			parent := filepath.Dir(path)
			for _, d := range []string{filepath.Dir(filepath.Dir(parent)), filepath.Dir(parent), parent} {
				if err := os.Mkdir(d, 0o700); err != nil {
					t.Fatal(err)
				}
			}
			writeAtomic(t, path, storeJSON(t, sA))
		}},
		{"all at once", func(t *testing.T, path string) {
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				t.Fatal(err)
			}
			writeFile(t, path, storeJSON(t, sA))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "Library", "Application Support", "co.nowledge.mem.desktop", "mcp-sessions.json")
			// A backstop of an hour: only fsnotify can find the new directory.
			h := startWatcher(t, Options{Path: path, Backstop: time.Hour})
			if u := h.next(); !u.Gone {
				t.Fatalf("want Gone before the directory exists, got %s", describeUpdates([]Update{u}))
			}
			tt.create(t, path)
			if u := h.next(); !snapshotWith(idA)(u) {
				t.Fatalf("want a snapshot once created, got %s", describeUpdates([]Update{u}))
			}
		})
	}
}

func TestWatcherBackstop(t *testing.T) {
	t.Parallel()
	path := mkStore(t, storeJSON(t, sA))
	h := startWatcher(t, Options{Path: path, Backstop: 50 * time.Millisecond})
	h.waitFor("first snapshot", snapshotWith(idA))
	writeAtomic(t, path, storeJSON(t, sA, sB))
	h.waitFor("second snapshot", snapshotWith(idA, idB))
	// The backstop's periodic reads of unchanged bytes send nothing.
	h.quiet(10 * 50 * time.Millisecond)
}

func TestWatcherRun(t *testing.T) {
	t.Parallel()
	path := mkStore(t, storeJSON(t, sA))
	w := NewWatcher(Options{Path: path})
	ctx, cancel := context.WithCancel(context.Background())
	out := make(chan Update, 1)
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx, out) }()
	select {
	case u := <-out:
		if !snapshotWith(idA)(u) {
			t.Fatalf("first update: %s", describeUpdates([]Update{u}))
		}
	case <-time.After(waitLimit):
		t.Fatal("no first update")
	}
	if err := w.Run(ctx, out); !errors.Is(err, ErrRunning) {
		t.Errorf("second Run = %v, want ErrRunning", err)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run = %v after cancel, want nil", err)
		}
	case <-time.After(waitLimit):
		t.Fatal("Run did not return after cancel")
	}
	// Stopped, it can run again, and blocks on nobody when ctx is done.
	ctx2, cancel2 := context.WithCancel(context.Background())
	cancel2()
	if err := w.Run(ctx2, make(chan Update)); err != nil {
		t.Errorf("Run with a done context = %v, want nil", err)
	}
}
