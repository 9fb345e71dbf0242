package memtrim

import (
	"runtime"
	"testing"
)

// A burst's garbage is collected and its pages given back once the burst
// is over (no collection since the last look); not while collections run,
// and not when little is spare.
func TestHeapGivesBackABurstsPages(t *testing.T) {
	trim := NewHeapTrim(64 << 20)
	trim.Look()
	if trim.Look() {
		t.Fatal("gave back a heap with less than 64 MiB spare")
	}
	trim.over = heapSpareOver
	// 16 MiB of small objects, as connections' buffers are, all in use
	// at once; then a quarter of them kept (the sessions): once
	// collected, the heap's goal stays above what is free, so the
	// runtime keeps the rest resident.
	var kept, burst [][]byte
	for range 4096 {
		burst = append(burst, make([]byte, 4<<10))
	}
	for i := 0; i < len(burst); i += 4 {
		kept = append(kept, burst[i])
	}
	burst = nil
	runtime.GC()
	before := trim.Spare()
	if before <= heapSpareOver {
		t.Fatalf("%d bytes of spare heap after a 16 MiB burst; the test wants more than %d", before, heapSpareOver)
	}
	if trim.Look() {
		t.Fatal("gave back the heap while collections ran (one since the last look)")
	}
	if !trim.Look() {
		t.Fatalf("did not give back %d bytes of spare heap once collections stopped", before)
	}
	if after := trim.Spare(); after > heapSpareOver {
		t.Errorf("%d bytes of spare heap resident after giving back (%d before); want at most %d", after, before, heapSpareOver)
	}
	runtime.KeepAlive(kept)
}
