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

// Only a lone response is the host answering the server: a request, a
// notification or a batch (2025-03-26) is sent again after a loss.
func TestIsResponse(t *testing.T) {
	for _, tc := range []struct {
		body string
		want bool
	}{
		{`{"jsonrpc":"2.0","id":3,"result":{}}`, true},
		{`{"jsonrpc":"2.0","id":3,"error":{"code":-1,"message":"no"}}`, true},
		{`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{}}`, false},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, false},
		{`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"tools/list"}]`, false},
		{`not json`, false},
	} {
		if got := isResponse([]byte(tc.body)); got != tc.want {
			t.Errorf("isResponse(%s) = %v, want %v", tc.body, got, tc.want)
		}
	}
}
