package memtrim

import (
	"context"
	"runtime"
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
	// heapEvery is how often the heap is looked at while collections run
	// (a read of the runtime's counters; no collection unless the look
	// calls for one).
	heapEvery = 3 * time.Second
	// heapSpareOver: when the heap holds more than this beyond what its
	// last collection found live (free pages still resident, and objects
	// no longer used but not yet collected: after a burst no allocation
	// comes to start a collection), and no collection ran since the last
	// look (the burst is over: under steady work the runtime's own pace
	// keeps that memory in use), it is collected and every free page given
	// back. At rest the daemon's heap is a few MB.
	heapSpareOver = 2 << 20
)

// The runtime's counters a look reads: free heap pages not yet given
// back, the heap's objects (live or not yet collected), what the last
// collection found live, and the collections so far.
var heapMetrics = [...]string{"/memory/classes/heap/free:bytes", "/memory/classes/heap/objects:bytes",
	"/gc/heap/live:bytes", "/gc/cycles/total:gc-cycles"}

// HeapTrim looks at the heap now and again and gives back what a burst
// left (Look). The zero value is not ready: NewHeapTrim.
type HeapTrim struct {
	sample []metrics.Sample // made once: a look allocates nothing
	over   uint64
	cycles uint64 // collections at the last look
}

// NewHeapTrim trims the heap when more than over bytes are spare.
func NewHeapTrim(over uint64) *HeapTrim {
	t := &HeapTrim{sample: make([]metrics.Sample, len(heapMetrics)), over: over}
	for i, name := range heapMetrics {
		t.sample[i].Name = name
	}
	t.Look()
	return t
}

// HeapLoop gives back the heap a burst of work left behind (HeapTrim),
// until ctx ends. It looks only while collections run: heapEvery after the
// last collection it was told of (a burst is over when none came for that
// long: a start-up's two quick collections no longer put the trim 6 s
// out, into the first minute), and then waits for the next one (at rest
// the runtime collects every two minutes), so a daemon at rest is woken by
// it about once a minute.
func HeapLoop(ctx context.Context) {
	gcs := make(chan struct{}, 1)
	afterEachGC(ctx, gcs)
	trim := NewHeapTrim(heapSpareOver)
	t := time.NewTimer(heapEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-gcs:
		}
		for settled := false; !settled; {
			trim.Mark()
			t.Reset(heapEvery)
			select {
			case <-ctx.Done():
				return
			case <-gcs:
				continue // another collection: the burst goes on
			case <-t.C:
			}
			var trimmed bool
			trimmed, settled = trim.Look()
			settled = settled || trimmed
		}
	}
}

// afterEachGC sends on c, without waiting, after each garbage collection,
// until ctx ends: a cleanup of an object nothing refers to runs once a
// collection has found it so, and makes the next one.
func afterEachGC(ctx context.Context, c chan<- struct{}) {
	type sentinel struct{ _ [32]byte } // not a tiny allocation: its cleanup runs after the first collection
	var arm func(struct{})
	arm = func(struct{}) {
		if ctx.Err() != nil {
			return
		}
		select {
		case c <- struct{}{}:
		default:
		}
		runtime.AddCleanup(new(sentinel), arm, struct{}{})
	}
	runtime.AddCleanup(new(sentinel), arm, struct{}{})
}

// Mark takes the collections so far as seen: the next Look calls the heap
// quiet when none ran since. HeapLoop marks each collection it is told
// of, so its first look after a burst can already trim.
func (t *HeapTrim) Mark() { _, t.cycles = t.read() }

// Look collects the heap and gives its free pages back when it holds
// more than the bound beyond what is live (Spare) and no collection ran
// since the last look. trimmed: it did; settled: nothing to do until the
// next collection (none ran since the last look, little is spare).
func (t *HeapTrim) Look() (trimmed, settled bool) {
	spare, cycles := t.read()
	quiet := cycles == t.cycles
	t.cycles = cycles
	if !quiet || spare <= t.over {
		return false, quiet
	}
	debug.FreeOSMemory()
	_, t.cycles = t.read()
	return true, true
}

// Spare is what the heap holds beyond what its last collection found
// live, in bytes: free pages still resident and objects not yet
// collected.
func (t *HeapTrim) Spare() uint64 {
	spare, _ := t.read()
	return spare
}

func (t *HeapTrim) read() (spare, cycles uint64) {
	metrics.Read(t.sample)
	var v [len(heapMetrics)]uint64
	for i := range v {
		if t.sample[i].Value.Kind() != metrics.KindUint64 {
			return 0, 0
		}
		v[i] = t.sample[i].Value.Uint64()
	}
	free, objects, live := v[0], v[1], v[2]
	return free + objects - min(live, objects), v[3]
}
