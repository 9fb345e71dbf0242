package demoserver

import (
	"sync"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/mask"
)

// TestOnEventReportsStartAndEnd: OnEvent sees each session's start with its
// client, then its end with the reason (a DELETE, then a ForgetAll), in
// order, and the Ended ground truth agrees.
func TestOnEventReportsStartAndEnd(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var events []Event
	s := startTest(t, Options{OnEvent: func(e Event) {
		mu.Lock()
		events = append(events, e)
		mu.Unlock()
	}})
	seen := func() []Event {
		mu.Lock()
		defer mu.Unlock()
		return append([]Event(nil), events...)
	}
	before := time.Now()
	deleted := connect(t, s.URL(), "deleter")
	kept := connect(t, s.URL(), "kept")
	delID, keptID := deleted.ID(), kept.ID()
	if err := deleted.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	waitFor(t, "the DELETE's end", func() bool { return len(seen()) == 3 })
	s.ForgetAll()
	waitFor(t, "the ForgetAll end", func() bool { return len(seen()) == 4 })

	want := []Event{
		{Kind: EventStart, ID: delID, Client: "deleter"},
		{Kind: EventStart, ID: keptID, Client: "kept"},
		{Kind: EventEnd, ID: delID, Client: "deleter", Reason: ReasonDeleted},
		{Kind: EventEnd, ID: keptID, Client: "kept", Reason: ReasonShutdown},
	}
	got := seen()
	for i, w := range want {
		g := got[i]
		if g.Kind != w.Kind || g.ID != w.ID || g.Client != w.Client || g.Reason != w.Reason || g.At.Before(before) {
			t.Errorf("event %d = %s %s %q %q at %v; want %s %s %q %q after %v", i,
				g.Kind, mask.ID(g.ID), g.Client, g.Reason, g.At, w.Kind, mask.ID(w.ID), w.Client, w.Reason, before)
		}
	}
	for _, e := range got[2:] {
		if ended, ok := findEnded(s.Ended(), e.ID); !ok || !ended.Ended.Equal(e.At) {
			t.Errorf("end of %s at %v, Ended() says %v (%v)", mask.ID(e.ID), e.At, ended.Ended, ok)
		}
	}
}
