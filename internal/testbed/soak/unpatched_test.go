package soak

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mcpwatchdog/watchdog/internal/mcphttp"
)

func TestEchoFailure(t *testing.T) {
	t.Parallel()
	answer := func(status int, result string, rpcErr *mcphttp.RPCError) mcphttp.Response {
		r := mcphttp.Response{Status: status, Body: []byte("body")}
		if result != "" || rpcErr != nil {
			r.RPC = &mcphttp.RPCMessage{Result: json.RawMessage(result), Error: rpcErr}
		}
		return r
	}
	tests := []struct {
		name string
		resp mcphttp.Response
		err  error
		want string // a substring; "" for success
	}{
		{"the echo", answer(200, `{"content":[{"type":"text","text":"a 1"}]}`, nil), nil, ""},
		{"refused", mcphttp.Response{}, errors.New("connection refused"), "connection refused"},
		{"a 502 from the proxy", answer(502, "", nil), nil, "HTTP 502"},
		{"no JSON-RPC", answer(200, "", nil), nil, "no JSON-RPC answer"},
		{"a JSON-RPC error", answer(200, "", &mcphttp.RPCError{Code: -32001, Message: "Session not found"}), nil, "-32001"},
		{"a tool error", answer(200, `{"isError":true,"content":[{"type":"text","text":"a 1"}]}`, nil), nil, "not the echo"},
		{"another text", answer(200, `{"content":[{"type":"text","text":"a 2"}]}`, nil), nil, "not the echo"},
	}
	for _, tt := range tests {
		got := echoFailure(tt.resp, tt.err, "a 1")
		if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

// The unpatched client's stdout arrives in pieces; every whole line is
// one call, a cut last line (a kill -9) none.
func TestLineWriter(t *testing.T) {
	t.Parallel()
	var lines []string
	w := &lineWriter{line: func(b []byte) { lines = append(lines, string(b)) }}
	for _, part := range []string{"{\"a\":", "1}\n{\"b\":2}\n{\"c\"", ":3}\n{\"cut"} {
		if n, err := w.Write([]byte(part)); n != len(part) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", part, n, err)
		}
	}
	if got := strings.Join(lines, "|"); got != `{"a":1}|{"b":2}|{"c":3}` {
		t.Fatalf("lines %q", got)
	}
}
