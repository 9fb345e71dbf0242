package store

import (
	"encoding/json"
	"fmt"
	"testing"
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
