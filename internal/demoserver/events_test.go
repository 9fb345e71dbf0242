package demoserver

import (
	"os"
	"strings"
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

// The ground truth is told before anything the watchdog reads: when OnEvent
// hears of a start or an end, neither the log nor the store says it yet. A
// kill between the two then leaves the truth knowing more than the watchdog,
// never less (soak run 31: a session the log said was ended idle a moment
// before the kill was counted as one the kill took).
func TestOnEventComesBeforeTheLogAndTheStore(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var early []string
	var logPath, storePath string // startTest's, set before any session
	told := 0
	s := startTest(t, Options{OnEvent: func(e Event) {
		mu.Lock()
		defer mu.Unlock()
		logged, _ := os.ReadFile(logPath)
		stored, _ := os.ReadFile(storePath)
		told++
		switch e.Kind {
		case EventStart:
			if strings.Contains(string(logged), e.ID) || strings.Contains(string(stored), e.ID) {
				early = append(early, "start")
			}
		case EventEnd:
			if strings.Contains(string(logged), msgClosed+" session_id="+e.ID) {
				early = append(early, "end")
			}
		}
	}})
	mu.Lock()
	logPath, storePath = s.log, s.store
	mu.Unlock()
	cs := connect(t, s.URL(), "c")
	if err := cs.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	waitFor(t, "the start and the end", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return told == 2
	})
	if len(early) != 0 {
		t.Fatalf("the log or the store had it before OnEvent: %v", early)
	}
}
