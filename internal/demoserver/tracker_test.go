package demoserver

import (
	"slices"
	"sync"
	"testing"
	"time"
)

// fakeClock is advanced by hand.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }
func newFakeClock() *fakeClock           { return &fakeClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)} }

func TestTrackerEnd(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		idle     time.Duration
		mark     Reason
		inflight bool
		want     Reason
		wantIdle time.Duration
	}{
		{"idle timer", 2 * time.Second, "", false, ReasonIdleTimeout, 3 * time.Second},
		{"deleted", 2 * time.Second, ReasonDeleted, false, ReasonDeleted, 3 * time.Second},
		{"shutdown during a request", 0, ReasonShutdown, true, ReasonShutdown, 0},
		{"no timeout, unmarked", 0, "", false, ReasonClosed, 3 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			clk := newFakeClock()
			changes := 0
			tr := newTracker(clk.now, tt.idle, func() { changes++ })
			if !tr.add("s1", "c") || tr.add("s1", "c") {
				t.Fatal("add: want true then false for a duplicate")
			}
			clk.add(time.Second)
			tr.begin("s1")
			if !tt.inflight {
				tr.finish("s1")
			}
			if tt.mark != "" {
				tr.mark("s1", tt.mark)
				tr.mark("s1", ReasonIdleTimeout) // the first mark wins
			}
			clk.add(3 * time.Second)
			es, ok := tr.end("s1")
			if !ok || es.Reason != tt.want || es.Idle != tt.wantIdle || es.Client != "c" {
				t.Fatalf("end = %+v %v; want reason %q idle %v", es, ok, tt.want, tt.wantIdle)
			}
			if _, again := tr.end("s1"); again {
				t.Error("second end reported true")
			}
			if tr.begin("s1") {
				t.Error("begin on an ended session reported live")
			}
			if got := tr.endedSessions(); len(got) != 1 || got[0] != es {
				t.Errorf("ended = %+v", got)
			}
			if changes == 0 {
				t.Error("changed was never called")
			}
		})
	}
}

func TestTrackerLiveOrder(t *testing.T) {
	t.Parallel()
	clk := newFakeClock()
	tr := newTracker(clk.now, 0, func() {})
	for _, id := range []string{"c", "a", "b"} {
		tr.add(id, "x")
		clk.add(time.Millisecond)
	}
	var ids []string
	for _, e := range tr.liveEntries() {
		ids = append(ids, e.id)
	}
	if !slices.Equal(ids, []string{"c", "a", "b"}) {
		t.Errorf("live order = %v, want creation order", ids)
	}
	tr.mark("zz", ReasonDeleted) // unknown ids are ignored
	if len(tr.liveEntries()) != 3 {
		t.Error("mark of an unknown id changed the live set")
	}
}
