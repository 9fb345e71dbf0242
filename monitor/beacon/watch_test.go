package beacon

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/monitor/proc"
)

func TestWatchOptions(t *testing.T) {
	t.Parallel()
	for _, dir := range []string{"", "relative/clients"} {
		err := Watch(t.Context(), Options{Dir: dir}, make(chan Update))
		if !errors.Is(err, ErrNoDir) {
			t.Errorf("Watch(Dir %q) = %v, want ErrNoDir", dir, err)
		}
	}
}

// TestWatchLiveClient: a live process's beacon is reported whole (the full
// session id, in memory) with the process's start time, and the liveness
// re-checks that follow send nothing while nothing changes.
func TestWatchLiveClient(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	c := startChild(t)
	want := client(c.pid, testID("live"))
	path := writeBeacon(t, dir, want)
	w := startWatch(t, dir, 100*time.Millisecond)

	u := w.next(t)
	want.Path, want.Started = path, c.host.Started
	if len(u.Clients) != 1 || !u.Clients[0].equal(want) {
		t.Fatalf("Update %+v, want just %+v", u, want)
	}
	if got := u.Clients[0].Servers[0].SessionID; got != testID("live") {
		t.Fatal("the session id did not come through whole")
	}
	w.quiet(t, 500*time.Millisecond)
}

// TestWatchDeadClient: a client killed (reaped, or left a zombie) drops out
// within two Intervals, with no file event to help, and its beacon and
// leftover temp file are removed.
func TestWatchDeadClient(t *testing.T) {
	t.Parallel()
	const interval = 250 * time.Millisecond
	for _, reap := range []bool{true, false} {
		name := map[bool]string{true: "reaped", false: "zombie"}[reap]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			c := startChild(t)
			path := writeBeacon(t, dir, client(c.pid, testID("dead")))
			temp := writeRaw(t, dir, tempName(c.pid), []byte("{"))
			w := startWatch(t, dir, interval)
			if u := w.next(t); !holds(u, c.pid, testID("dead")) {
				t.Fatalf("live client not reported: %+v", u)
			}

			killed := time.Now()
			if reap {
				c.kill()
			} else {
				_ = c.cmd.Process.Kill() // not waited for: a zombie until cleanup
			}
			w.waitFor(t, "the client gone", 2*interval+750*time.Millisecond, func(u Update) bool {
				return len(u.Clients) == 0
			})
			t.Logf("gone after %s", time.Since(killed).Round(time.Millisecond))
			if exists(path) || exists(temp) {
				t.Fatalf("beacon left: %v, temp file left: %v", exists(path), exists(temp))
			}
			if w.log.count("removed the beacon") != 1 {
				t.Fatalf("want one line saying the beacon was removed; log:\n%s", w.log)
			}
		})
	}
}

// TestWatchPidReuse: a beacon counts only if the process at its pid began
// before the beacon was written; the earlier of the beacon's own time and
// its file's decides, so neither a missing nor a future "updated" makes a
// newer process its writer. A beacon that fails is removed.
func TestWatchPidReuse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		updated  time.Duration // from the process's start; 0: null
		mtime    time.Duration // from the process's start; 0: now
		reported bool
	}{
		{"written after the process began", time.Second, 0, true},
		{"updated before the process began", -5 * time.Second, 0, false},
		{"no updated, file older than the process", 0, -5 * time.Second, false},
		{"updated in the future, file older than the process", time.Hour, -5 * time.Second, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			c := startChild(t)
			began := proc.Began(c.host)
			b := client(c.pid, testID("reuse"))
			b.Updated = time.Time{}
			if tc.updated != 0 {
				b.Updated = began.Add(tc.updated).UTC()
			}
			path := writeBeacon(t, dir, b)
			if tc.mtime != 0 {
				old := began.Add(tc.mtime)
				if err := os.Chtimes(path, old, old); err != nil {
					t.Fatal(err)
				}
			}
			w := startWatch(t, dir, time.Hour)

			u := w.next(t)
			if got := holds(u, c.pid, testID("reuse")); got != tc.reported || len(u.Clients) > 1 {
				t.Fatalf("reported %v (%+v), want %v", got, u, tc.reported)
			}
			if exists(path) != tc.reported {
				t.Fatalf("beacon on disk: %v, want %v", exists(path), tc.reported)
			}
		})
	}
}

// TestWatchSweepsTemps: a temp file whose writer is gone is removed; a live
// client's is left alone, since it may be writing it right now.
func TestWatchSweepsTemps(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	live, gone := startChild(t), startChild(t)
	gone.kill()
	liveTemp := writeRaw(t, dir, tempName(live.pid), []byte("{"))
	goneTemp := writeRaw(t, dir, tempName(gone.pid), []byte("{"))
	w := startWatch(t, dir, time.Hour)

	if u := w.next(t); len(u.Clients) != 0 {
		t.Fatalf("temp files reported as clients: %+v", u)
	}
	if !exists(liveTemp) || exists(goneTemp) {
		t.Fatalf("live client's temp kept: %v (want true); dead one's kept: %v (want false)",
			exists(liveTemp), exists(goneTemp))
	}
}

// TestWatchDirCreatedLater: the directory does not exist when Watch starts
// (the client makes it on its first start); its creation, its removal and
// its re-creation are each seen. Interval is an hour, so only file events
// can explain the Updates.
func TestWatchDirCreatedLater(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	dir := filepath.Join(home, "a", "b", "clients")
	c := startChild(t)
	w := startWatch(t, dir, time.Hour)
	if u := w.next(t); len(u.Clients) != 0 {
		t.Fatalf("initial Update %+v, want none", u)
	}
	steps := []struct {
		name string
		do   func()
		want func(Update) bool
	}{
		{"created", func() { writeBeacon(t, dir, client(c.pid, testID("first"))) },
			func(u Update) bool { return holds(u, c.pid, testID("first")) }},
		{"removed", func() { _ = os.RemoveAll(filepath.Join(home, "a")) },
			func(u Update) bool { return len(u.Clients) == 0 }},
		{"created again", func() { writeBeacon(t, dir, client(c.pid, testID("second"))) },
			func(u Update) bool { return holds(u, c.pid, testID("second")) }},
	}
	for _, s := range steps {
		s.do()
		w.waitFor(t, "the directory "+s.name, 5*time.Second, s.want)
	}
}

// TestWatchRewrite: each rename-over rewrite is one Update with what the
// new file says (Interval an hour: file events alone).
func TestWatchRewrite(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	c := startChild(t)
	writeBeacon(t, dir, client(c.pid, testID("old")))
	w := startWatch(t, dir, time.Hour)
	if u := w.next(t); !holds(u, c.pid, testID("old")) {
		t.Fatalf("initial Update %+v, want the old session", u)
	}

	writeBeacon(t, dir, client(c.pid, testID("new")))
	if u := w.next(t); !holds(u, c.pid, testID("new")) {
		t.Fatalf("after the rewrite %+v, want the new session", u)
	}
	lost := client(c.pid, "")
	lost.Servers[0].State = Reconnecting
	writeBeacon(t, dir, lost)
	u := w.next(t)
	if s, ok := u.Clients[0].Server("mem"); !ok || s.State != Reconnecting || s.SessionID != "" {
		t.Fatalf("after the loss %+v, want reconnecting without a session", u)
	}
}

// TestWatchSortsClients: several live clients come sorted by pid, and one
// leaving sends the rest.
func TestWatchSortsClients(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cs := []*child{startChild(t), startChild(t), startChild(t)}
	var want []int32
	for _, c := range cs {
		writeBeacon(t, dir, client(c.pid, testID("many")))
		want = append(want, c.pid)
	}
	slices.Sort(want)
	w := startWatch(t, dir, 100*time.Millisecond)
	if u := w.next(t); !slices.Equal(pids(u), want) {
		t.Fatalf("pids %v, want %v", pids(u), want)
	}
	cs[1].kill()
	want = slices.DeleteFunc(want, func(p int32) bool { return p == cs[1].pid })
	if u := w.next(t); !slices.Equal(pids(u), want) {
		t.Fatalf("after one left: pids %v, want %v", pids(u), want)
	}
}

// TestRead: one look reports the live clients whole, as Watch's first
// Update does, and removes a dead client's beacon.
func TestRead(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	live, dead := startChild(t), startChild(t)
	want := client(live.pid, testID("live"))
	want.Path, want.Started = writeBeacon(t, dir, want), live.host.Started
	deadPath := writeBeacon(t, dir, client(dead.pid, testID("dead")))
	dead.kill()

	got, err := Read(t.Context(), Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || !got[0].equal(want) || got[0].Servers[0].SessionID != testID("live") {
		t.Fatalf("Read: %+v, want just %+v", got, want)
	}
	if exists(deadPath) {
		t.Fatal("the dead client's beacon was left")
	}
	if _, err := Read(t.Context(), Options{Dir: "relative"}); !errors.Is(err, ErrNoDir) {
		t.Fatalf("relative dir: %v, want ErrNoDir", err)
	}
}
