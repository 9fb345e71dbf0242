package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func BenchmarkParse(b *testing.B) {
	for _, n := range []int{10, 1000} {
		for _, shape := range []string{"map", "list"} {
			data := benchStore(b, n, shape)
			b.Run(fmt.Sprintf("%s/%d", shape, n), func(b *testing.B) {
				b.SetBytes(int64(len(data)))
				b.ReportAllocs()
				for b.Loop() {
					got, _, err := Parse(data)
					if err != nil || len(got) != n {
						b.Fatalf("Parse: %d sessions, %v", len(got), err)
					}
				}
			})
		}
	}
}

// benchStore writes n sessions in the shape a Rust (serde) server would.
func benchStore(b *testing.B, n int, shape string) []byte {
	b.Helper()
	entry := func(i int) map[string]any {
		return map[string]any{
			"session_id":       fmt.Sprintf("%08x-7b2d-4e6f-9a3b-5c1d2e3f4a5b", i),
			"client_info":      map[string]any{"name": "dsh-mcp-client", "version": "0.3.1"},
			"protocol_version": "2025-06-18",
			"created_at":       "2025-11-29T08:00:00.123456Z",
			"last_activity":    1764408600123 + i,
		}
	}
	var v any
	if shape == "map" {
		m := map[string]any{}
		for i := range n {
			e := entry(i)
			m[e["session_id"].(string)] = e
		}
		v = map[string]any{"sessions": m}
	} else {
		l := make([]any, n)
		for i := range n {
			l[i] = entry(i)
		}
		v = l
	}
	data, err := json.Marshal(v)
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// BenchmarkReadLargeStore: issue 15's measurement A. A 50 MB store (416k
// sessions) once cost the daemon 800 MB; now Load refuses it by its size
// (ErrTooLarge) without reading it, and a store just under MaxStoreSize is
// streamed, keeping MaxSessions sessions. B/op is what one read allocates
// in all; retained-MB is the heap the read's result still holds after a GC.
func BenchmarkReadLargeStore(b *testing.B) {
	dir := b.TempDir()
	for _, tc := range []struct {
		name string
		size int
	}{{"50MB", 50 << 20}, {"at_cap", MaxStoreSize - 1024}} {
		data := sizedStore(tc.size)
		path := filepath.Join(dir, tc.name+".json")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			b.Fatal(err)
		}
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			var res Result
			var err error
			for b.Loop() {
				res, err = Load(path)
				if tc.size > MaxStoreSize && !errors.Is(err, ErrTooLarge) {
					b.Fatalf("Load = %v, want ErrTooLarge", err)
				}
				if tc.size <= MaxStoreSize && (err != nil || len(res.Sessions) != MaxSessions) {
					b.Fatalf("Load = %d sessions, %v", len(res.Sessions), err)
				}
			}
			b.ReportMetric(float64(res.Truncated), "truncated")
			b.ReportMetric(float64(retained(func() { res = Result{} }))/(1<<20), "retained-MB")
			b.ReportMetric(float64(peakHeap(func() { _, _ = Load(path) }))/(1<<20), "peak-heap-MB")
		})
	}
}

// sizedStore is a list of sessions as a server writes them, about size bytes.
func sizedStore(size int) []byte {
	var buf bytes.Buffer
	buf.WriteString("[")
	for i := 0; buf.Len() < size-200; i++ {
		if i > 0 {
			buf.WriteByte(',')
		}
		fmt.Fprintf(&buf, `{"session_id":"%08x-7b2d-4e6f-9a3b-5c1d2e3f4a5b","client_info":{"name":"dsh-mcp-client"},"last_activity":%d}`, i, 1764408600123+i)
	}
	buf.WriteString("]")
	return buf.Bytes()
}

// retained is how much less heap is in use after drop lets go of a result.
func retained(drop func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	drop()
	runtime.GC()
	runtime.ReadMemStats(&after)
	if after.HeapAlloc > before.HeapAlloc {
		return 0
	}
	return before.HeapAlloc - after.HeapAlloc
}

// peakHeap samples the live heap while fn runs and returns its highest
// value above the heap before fn: roughly the most fn held at once.
func peakHeap(fn func()) uint64 {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() uint64 { metrics.Read(sample); return sample[0].Value.Uint64() }
	runtime.GC()
	base := read()
	var peak atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(100 * time.Microsecond)
		defer t.Stop()
		for {
			if v := read(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	})
	fn()
	close(done)
	wg.Wait()
	if p := peak.Load(); p > base {
		return p - base
	}
	return 0
}
