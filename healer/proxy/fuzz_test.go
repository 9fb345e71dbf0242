package proxy

import (
	"bufio"
	"bytes"
	"testing"
)

// FuzzServerAnswers: whatever a server answers, reading its initialize
// answer and its stream's events neither panics nor takes more than the
// cap into one event.
func FuzzServerAnswers(f *testing.F) {
	f.Add("text/event-stream", []byte("event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{\"tools\":{}}}}\n\n"))
	f.Add("application/json", []byte(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18"}}`))
	f.Add("text/event-stream", []byte("data: a\r\ndata: b\r\n\r\n: comment\n\nid: 7\ndata"))
	f.Fuzz(func(t *testing.T, contentType string, data []byte) {
		initResult(contentType, data)
		methodOf(data)
		paramsOf(data)
		const max = 64
		br := bufio.NewReaderSize(bytes.NewReader(data), 16)
		for range len(data) + 1 {
			ev, err := readEvent(br, max)
			if len(ev) > max {
				t.Fatalf("an event of %d bytes passed a cap of %d", len(ev), max)
			}
			if err != nil {
				return
			}
		}
		t.Fatal("readEvent did not reach the end of its input")
	})
}
