package memtrim

import (
	"runtime"
	"testing"
)

// A burst's garbage, not collected yet, is collected and its pages given
// back; a heap without much spare is left alone.
func TestHeapGivesBackABurstsPages(t *testing.T) {
	sample := HeapSample()
	Heap(sample, 0) // start from a heap with nothing free resident
	if Heap(sample, 64<<20) {
		t.Fatal("gave back a heap with less than 64 MiB free")
	}
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
	before := Spare(sample)
	if before <= heapFreeOver {
		t.Fatalf("%d bytes of spare heap after a 16 MiB burst; the test wants more than %d", before, heapFreeOver)
	}
	if !Heap(sample, heapFreeOver) {
		t.Fatalf("did not give back %d bytes of spare heap", before)
	}
	if after := Spare(sample); after > heapFreeOver {
		t.Errorf("%d bytes of spare heap resident after giving back (%d before); want at most %d", after, before, heapFreeOver)
	}
	runtime.KeepAlive(kept)
}
