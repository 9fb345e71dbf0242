package memtrim

import (
	"context"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// The heap after a burst: a thousand hosts opening sessions through the
// proxy at once leave the heap grown to twice what stays live (the
// collector's goal) and the freed pages resident, since the runtime gives
// back only what is above that goal: measured, 8.7 KiB of resident memory
// per held session, 3.3 of it the sessions' own (make bench-proxy). Once
// the burst is over, the daemon gives the rest back.
const (
	// heapEvery is how often the heap's free pages are looked at (a read
	// of the runtime's counters; no collection unless they are over
	// heapFreeOver).
	heapEvery = 5 * time.Second
	// heapFreeOver: when the heap holds more than this beyond what its
	// last collection found live (free pages still resident, and objects
	// no longer used but not yet collected: after a burst no allocation
	// comes to start a collection), it is collected and every free page
	// given back. Below it the runtime's own pace is left alone: at rest
	// the daemon's heap is a few MB.
	heapFreeOver = 2 << 20
)

// The runtime's counters Heap reads: free heap pages not yet given back,
// the heap's objects (live or not yet collected), and what the last
// collection found live.
var heapMetrics = [...]string{"/memory/classes/heap/free:bytes", "/memory/classes/heap/objects:bytes", "/gc/heap/live:bytes"}

// HeapSample is the samples Heap reads, made once by its caller so that a
// look allocates nothing.
func HeapSample() []metrics.Sample {
	s := make([]metrics.Sample, len(heapMetrics))
	for i, name := range heapMetrics {
		s[i].Name = name
	}
	return s
}

// HeapLoop gives the heap's free pages back to the system whenever more
// than heapFreeOver of them stay resident, until ctx ends.
func HeapLoop(ctx context.Context) {
	t := time.NewTicker(heapEvery)
	defer t.Stop()
	sample := HeapSample()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		Heap(sample, heapFreeOver)
	}
}

// Heap collects the heap and gives its free pages back when it holds more
// than over bytes beyond what is live (Spare), and reports whether it
// did. sample is HeapSample's.
func Heap(sample []metrics.Sample, over uint64) bool {
	if Spare(sample) <= over {
		return false
	}
	debug.FreeOSMemory()
	return true
}

// Spare is what the heap holds beyond what its last collection found
// live, in bytes: free pages still resident and objects not yet
// collected.
func Spare(sample []metrics.Sample) uint64 {
	metrics.Read(sample)
	var v [len(heapMetrics)]uint64
	for i := range v {
		if sample[i].Value.Kind() != metrics.KindUint64 {
			return 0
		}
		v[i] = sample[i].Value.Uint64()
	}
	free, objects, live := v[0], v[1], v[2]
	return free + objects - min(live, objects)
}
