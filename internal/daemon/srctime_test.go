package daemon

import (
	"context"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/wallclock"
)

// runSource runs src until the test ends and hands the test what it emits.
func runSource(t *testing.T, src source) <-chan item {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	out := make(chan item)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = src.Run(ctx, func(it item) bool { return sendTo(ctx, out, it) })
	}()
	t.Cleanup(func() { cancel(); <-done })
	return out
}

func nextItem(t *testing.T, out <-chan item) item {
	t.Helper()
	select {
	case it := <-out:
		return it
	case <-time.After(10 * time.Second):
		t.Fatal("the source emitted nothing in 10 s")
		return nil
	}
}

// TestTimeSourceWaitsForTheLoopsDeadline: the time source ticks at once,
// then only at the deadline the loop hands it after the tick it took; a
// deadline worked out before the loop took the last tick is dropped (else
// a tick in flight would be followed by a second one at a stale time).
func TestTimeSourceWaitsForTheLoopsDeadline(t *testing.T) {
	next := make(chan nextWake, 2)
	out := runSource(t, &timeSource{clock: wallclock.New(""), next: next})
	first, ok := nextItem(t, out).(tickIn)
	if !ok || first.seq != 1 {
		t.Fatalf("first item %#v, want tickIn 1 at once", first)
	}
	const wait = 300 * time.Millisecond
	handed := time.Now()
	next <- nextWake{after: wait, seq: 1}
	next <- nextWake{after: time.Millisecond, seq: 0} // stale: worked out before tick 1 was taken
	second, ok := nextItem(t, out).(tickIn)
	if !ok || second.seq != 2 {
		t.Fatalf("second item %#v, want tickIn 2", second)
	}
	if took := time.Since(handed); took < wait {
		t.Fatalf("second tick after %v: the stale deadline was used, want the loop's %v", took, wait)
	}
}

// TestRetrySourceFiresWhenHeldEventsAreDue: nothing while nothing is
// held; a retry at the time handed over; a stale time is dropped.
func TestRetrySourceFiresWhenHeldEventsAreDue(t *testing.T) {
	at := make(chan retryWake, 2)
	out := runSource(t, &retrySource{at: at})
	const wait = 300 * time.Millisecond
	handed := time.Now()
	at <- retryWake{ok: false}
	at <- retryWake{at: handed.Add(wait), ok: true}
	first, ok := nextItem(t, out).(journalRetryIn)
	if !ok || first.seq != 1 {
		t.Fatalf("first item %#v, want journalRetryIn 1", first)
	}
	if took := time.Since(handed); took < wait {
		t.Fatalf("retry after %v, want at %v", took, wait)
	}
	handed = time.Now()
	at <- retryWake{at: handed.Add(wait), ok: true, seq: 1}
	at <- retryWake{at: handed, ok: true, seq: 0} // stale: read before retry 1 was taken
	second, ok := nextItem(t, out).(journalRetryIn)
	if !ok || second.seq != 2 {
		t.Fatalf("second item %#v, want journalRetryIn 2", second)
	}
	if took := time.Since(handed); took < wait {
		t.Fatalf("second retry after %v: the stale time was used, want %v", took, wait)
	}
}

// TestRefreshSourceAsksForViews: the tray's refresh asks the loop for a
// fresh view every period, between events.
func TestRefreshSourceAsksForViews(t *testing.T) {
	out := runSource(t, &refreshSource{every: 20 * time.Millisecond})
	for range 3 {
		if it, ok := nextItem(t, out).(refreshIn); !ok {
			t.Fatalf("item %#v, want refreshIn", it)
		}
	}
}
