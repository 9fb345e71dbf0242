package mcphttp

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// FuzzReadAnswer: server answers are untrusted; reading one never panics,
// never keeps more than the cap, and only ever returns a response with our
// id (or a lone null-id error).
func FuzzReadAnswer(f *testing.F) {
	seeds := []struct {
		sse  bool
		body string
	}{
		{false, `{"jsonrpc":"2.0","id":"watchdog-1","result":{}}`},
		{false, `[{"jsonrpc":"2.0","id":"watchdog-1","result":{}},{"jsonrpc":"2.0","method":"x"}]`},
		{false, `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: No valid session ID provided"},"id":null}`},
		{false, "session not found"},
		{true, "event: message\nid: 1\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"watchdog-1\",\"result\":{}}\n\n"},
		{true, "data: {\"jsonrpc\":\"2.0\",\r\ndata: \"id\":\"watchdog-1\",\"result\":1}\r\n"},
		{true, ": keepalive\n\ndata\ndata:\n\n"},
		{false, `{"jsonrpc":"2.0","id":{"a":1},"result":{}}`},
	}
	for _, s := range seeds {
		f.Add(s.sse, []byte(s.body))
	}
	f.Fuzz(func(t *testing.T, sse bool, body []byte) {
		ct := "application/json"
		if sse {
			ct = "text/event-stream"
		}
		const max = 256
		rpc, raw, err := readAnswer(bytes.NewReader(body), ct, "watchdog-1", max)
		if len(raw) > max {
			t.Fatalf("kept %d bytes over the cap", len(raw))
		}
		if len(body) <= max && err != nil {
			t.Fatalf("error %v on a body within the cap", err)
		}
		if err != nil && !errors.Is(err, ErrBodyTooLarge) {
			t.Fatalf("unexpected error %v", err)
		}
		if rpc != nil && !rpc.hasID("watchdog-1") && !(rpc.Error != nil && rpc.nullID()) {
			t.Fatalf("returned a message that is not ours: %+v", rpc)
		}
		_ = Judge(Response{Status: 404, RPC: rpc, Body: raw}, err)
	})
}

func BenchmarkScanSSE(b *testing.B) {
	var sb strings.Builder
	for range 100 {
		sb.WriteString("event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progress\":1}}\n\n")
	}
	sb.WriteString("data: {\"jsonrpc\":\"2.0\",\"id\":\"watchdog-1\",\"result\":{}}\n\n")
	stream := sb.String()
	b.SetBytes(int64(len(stream)))
	for b.Loop() {
		rpc, _, err := readAnswer(strings.NewReader(stream), "text/event-stream", "watchdog-1", DefaultMaxBody)
		if rpc == nil || err != nil {
			b.Fatal(rpc, err)
		}
	}
}

// TestCapReaderSticky: once over the cap, every further read fails and
// nothing past the cap is handed on.
func TestCapReaderSticky(t *testing.T) {
	t.Parallel()
	for _, size := range []int{0, 9, 10, 11, 100} {
		cr := &capReader{r: strings.NewReader(strings.Repeat("x", size)), max: 10}
		var got []byte
		buf := make([]byte, 3)
		var err error
		for range 20 {
			var n int
			n, err = cr.Read(buf)
			got = append(got, buf[:n]...)
			if err != nil && !errors.Is(err, ErrBodyTooLarge) {
				break
			}
		}
		over := size > 10
		if errors.Is(err, ErrBodyTooLarge) != over || len(got) != min(size, 10) {
			t.Errorf("size %d: read %d bytes, err %v", size, len(got), err)
		}
	}
}
