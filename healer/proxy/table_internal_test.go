package proxy

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkSaveAtCap: table.save writes the whole state file, and it runs
// on every new session; at DefaultMaxSessions this is what one costs (a
// later issue writes the state only on change, batched).
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
