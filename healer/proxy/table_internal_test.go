package proxy

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"
)

// BenchmarkSaveAtCap: table.save writes the whole state file when the
// table changes (new sessions meanwhile share one write); at
// DefaultMaxSessions this is what one write costs.
func BenchmarkSaveAtCap(b *testing.B) {
	path := filepath.Join(b.TempDir(), "proxy-mem.json")
	t, err := loadTable(path, DefaultMaxSessions, slog.New(slog.DiscardHandler))
	if err != nil {
		b.Fatal(err)
	}
	init := json.RawMessage(`{"protocolVersion":"2025-06-18","capabilities":{"roots":{"listChanged":true}},"clientInfo":{"name":"claude-code","version":"2.1.328"}}`)
	h := http.Header{"Authorization": {"Bearer 0123456789abcdef"}, "User-Agent": {"claude-code/2.1.328"}}
	at := time.Now()
	for i := range DefaultMaxSessions {
		t.byID[newHostID()] = &session{hostID: newHostID(), init: init, upstream: fmt.Sprintf("%032x", i),
			protocol: "2025-06-18", last: at.Add(time.Duration(i)), header: h}
	}
	for b.Loop() {
		t.save()
	}
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(fi.Size()), "file-bytes")
}

// Sessions added while a write is under way share the next write, and
// that write holds every one of them.
func TestSavesShareAWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "proxy-mem.json")
	tb, err := loadTable(path, DefaultMaxSessions, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	const n = 10
	tb.writeMu.Lock() // a write under way
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() { tb.add(&session{hostID: newHostID(), init: json.RawMessage(`{}`)}) })
	}
	for changed := 0; changed < n; { // every add has made its change and waits for a write
		tb.mu.Lock()
		changed = int(tb.changes)
		tb.mu.Unlock()
		runtime.Gosched()
	}
	tb.writeMu.Unlock()
	wg.Wait()
	if tb.writes != 1 {
		t.Errorf("%d adds during a write made %d writes, want 1", n, tb.writes)
	}
	again, err := loadTable(path, DefaultMaxSessions, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	if len(again.byID) != n {
		t.Errorf("the state file holds %d sessions, want %d", len(again.byID), n)
	}
}
