package memtrim

import (
	"context"
	"runtime"
	"testing"
	"time"
)

// A burst's garbage is collected and its pages given back once the burst
// is over (no collection since the last look); not while collections run,
// and not when little is spare.
func TestHeapGivesBackABurstsPages(t *testing.T) {
	trim := NewHeapTrim(64 << 20)
	trim.Look()
	if trimmed, _ := trim.Look(); trimmed {
		t.Fatal("gave back a heap with less than 64 MiB spare")
	}
	trim.over = heapSpareOver
	kept := burst()
	runtime.GC()
	before := trim.Spare()
	if before <= heapSpareOver {
		t.Fatalf("%d bytes of spare heap after a 16 MiB burst; the test wants more than %d", before, heapSpareOver)
	}
	if trimmed, settled := trim.Look(); trimmed || settled {
		t.Fatalf("trimmed %v, settled %v while collections ran (one since the last look)", trimmed, settled)
	}
	if trimmed, _ := trim.Look(); !trimmed {
		t.Fatalf("did not give back %d bytes of spare heap once collections stopped", before)
	}
	if after := trim.Spare(); after > heapSpareOver {
		t.Errorf("%d bytes of spare heap resident after giving back (%d before); want at most %d", after, before, heapSpareOver)
	}
	runtime.KeepAlive(kept)
}

// A look after a collection the loop was woken by (Mark) gives the burst
// back at once when none ran since: the loop's first look after a burst,
// not its second, trims (a daemon's start-up garbage went back 6 s after
// the start, inside the first minute, rather than 3 s).
func TestHeapTrimsOnTheFirstLookAfterTheCollectionMarked(t *testing.T) {
	trim := NewHeapTrim(heapSpareOver)
	kept := burst()
	runtime.GC()
	trim.Mark()
	if before := trim.Spare(); before <= heapSpareOver {
		t.Fatalf("%d bytes of spare heap after a 16 MiB burst; the test wants more than %d", before, heapSpareOver)
	}
	if trimmed, settled := trim.Look(); !trimmed || !settled {
		t.Fatalf("trimmed %v, settled %v on the first look after the collection marked; want both", trimmed, settled)
	}
	runtime.KeepAlive(kept)
}

// A signal comes after each collection, and none once the context ends.
func TestAfterEachGC(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	gcs := make(chan struct{}, 1)
	afterEachGC(ctx, gcs)
	for i := range 3 {
		runtime.GC()
		select {
		case <-gcs:
		case <-time.After(10 * time.Second):
			t.Fatalf("no signal within 10 s of collection %d", i+1)
		}
	}
	cancel()
	runtime.GC() // the armed cleanup runs, sees the end, arms no other
	runtime.GC()
	select {
	case <-gcs: // the one the first of these may have sent before it looked
	case <-time.After(100 * time.Millisecond):
	}
	runtime.GC()
	select {
	case <-gcs:
		t.Error("a signal after the context ended")
	case <-time.After(time.Second):
	}
}

// The loop gives a burst's pages back once collections stop (one
// collection: after two the runtime's own scavenger gives the excess back).
func TestHeapLoopGivesBackAfterTheLastCollection(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); HeapLoop(ctx) }()
	defer func() { cancel(); <-done }()
	trim := NewHeapTrim(heapSpareOver)
	kept := burst()
	runtime.GC()
	if spare := trim.Spare(); spare <= heapSpareOver {
		t.Fatalf("%d bytes of spare heap after a 16 MiB burst; the test wants more than %d", spare, heapSpareOver)
	}
	deadline := time.Now().Add(30 * time.Second)
	for trim.Spare() > heapSpareOver {
		if time.Now().After(deadline) {
			t.Fatalf("%d bytes of spare heap still resident 30 s after the burst", trim.Spare())
		}
		time.Sleep(50 * time.Millisecond)
	}
	runtime.KeepAlive(kept)
}

// burst allocates 16 MiB of small objects, as connections' buffers are,
// all in use at once, and keeps a quarter of them (the sessions): once
// collected, the heap's goal stays above what is free, so the runtime
// keeps the rest resident. The caller keeps what it returns alive.
func burst() [][]byte {
	var kept, all [][]byte
	for range 4096 {
		all = append(all, make([]byte, 4<<10))
	}
	for i := 0; i < len(all); i += 4 {
		kept = append(kept, all[i])
	}
	return kept
}
