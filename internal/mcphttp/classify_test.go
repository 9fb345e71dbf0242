package mcphttp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"syscall"
	"testing"
)

// answerOf builds a Response the way roundTrip does, from a status, headers
// and a body: pure rows for the classification table.
func answerOf(status int, header http.Header, body string) Response {
	if header == nil {
		header = http.Header{}
	}
	rpc, raw, err := readAnswer(strings.NewReader(body), header.Get("Content-Type"), "watchdog-1", DefaultMaxBody)
	if err != nil {
		panic(err)
	}
	return Response{Status: status, Header: header, RPC: rpc, Body: raw, sentSession: "sess-0123456789abcdef"}
}

// TestClassify: every answer the watchdog has met, and what it means.
// Long: a table of answers, one row each.
func TestClassify(t *testing.T) {
	t.Parallel()
	jsonH := http.Header{"Content-Type": {"application/json"}}
	sseH := http.Header{"Content-Type": {"text/event-stream"}}
	tests := []struct {
		name   string
		resp   Response
		err    error
		want   Verdict
		reason string // a phrase the reason must contain
	}{
		{"200 result", answerOf(200, jsonH, `{"jsonrpc":"2.0","id":"watchdog-1","result":{}}`), nil, Alive, "200"},
		{"200 SSE result", answerOf(200, sseH, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"watchdog-1\",\"result\":{}}\n\n"), nil, Alive, "200"},
		{"200 error not about the session", answerOf(200, jsonH, `{"jsonrpc":"2.0","id":"watchdog-1","error":{"code":-32601,"message":"Method not found"}}`), nil, Alive, "200"},
		{"200 error about the session", answerOf(200, jsonH, `{"jsonrpc":"2.0","id":"watchdog-1","error":{"code":-32000,"message":"Session expired"}}`), nil, Lost, "session error"},
		{"200 someone else's id", answerOf(200, jsonH, `{"jsonrpc":"2.0","id":1,"result":{}}`), nil, Unexpected, "without a JSON-RPC response"},
		{"200 HTML", answerOf(200, http.Header{"Content-Type": {"text/html"}}, `<html>`), nil, Unexpected, "without"},
		{"202 notification accepted", answerOf(202, nil, ""), nil, Alive, "202"},
		{"404 Go SDK", answerOf(404, http.Header{"Content-Type": {"text/plain"}}, "session not found\n"), nil, Lost, "404"},
		{"404 rmcp", answerOf(404, nil, "Not Found: Session not found"), nil, Lost, "404"},
		{"404 TypeScript SDK", answerOf(404, jsonH, `{"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"},"id":null}`), nil, Lost, "-32001"},
		{"404 Python SDK", answerOf(404, jsonH, `{"jsonrpc":"2.0","id":"server-error","error":{"code":-32600,"message":"Session not found"}}`), nil, Lost, "Session not found"},
		{"404 empty", answerOf(404, nil, ""), nil, Lost, "empty body"},
		{"404 -32601 modern", answerOf(404, jsonH, `{"jsonrpc":"2.0","id":"watchdog-1","error":{"code":-32601,"message":"method not found"}}`), nil, Stateless, "2026-07-28"},
		{"404 -32601 null id", answerOf(404, jsonH, `{"jsonrpc":"2.0","id":null,"error":{"code":-32601,"message":"method not found"}}`), nil, Stateless, "-32601"},
		{"400 TS example quirk", answerOf(400, jsonH, `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: No valid session ID provided"},"id":null}`), nil, Lost, "400"},
		{"400 header required", answerOf(400, jsonH, `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: Mcp-Session-Id header is required"},"id":null}`), nil, Lost, "400"},
		{"400 invalid session text", answerOf(400, nil, "Invalid session"), nil, Lost, "400"},
		{"400 session expired text", answerOf(400, nil, "Bad Request: session expired"), nil, Lost, "400"},
		{"400 unknown session", answerOf(400, nil, "unknown session id"), nil, Lost, "400"},
		{"400 other", answerOf(400, nil, "Bad Request: Unsupported protocol version"), nil, Unexpected, "Unsupported protocol version"},
		{"400 -32022 modern", answerOf(400, jsonH, `{"jsonrpc":"2.0","id":"watchdog-1","error":{"code":-32022,"message":"protocol version not supported"}}`), nil, Unexpected, "-32022"},
		{"400 -32022 modern-only (TypeScript SDK v2, legacy: reject)", answerOf(400, jsonH, `{"jsonrpc":"2.0","error":{"code":-32022,"message":"Unsupported protocol version: 2025-11-25","data":{"supported":["2026-07-28"],"requested":"2025-11-25"}},"id":"watchdog-1"}`), nil, Stateless, "only the 2026-07-28"},
		{"400 -32022 naming a legacy version", answerOf(400, jsonH, `{"jsonrpc":"2.0","error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28","2025-11-25"]}},"id":"watchdog-1"}`), nil, Unexpected, "-32022"},
		{"401 bearer", answerOf(401, http.Header{"Www-Authenticate": {`Bearer realm="mem"`}}, ""), nil, Auth, "Authorization"},
		{"401 nmem header", answerOf(401, http.Header{"Www-Authenticate": {`X-NMEM-API-Key`}}, ""), nil, Auth, "X-NMEM-API-Key"},
		{"403 nmem in body", answerOf(403, nil, `missing x-nmem-api-key`), nil, Auth, "X-NMEM-API-Key"},
		{"403 plain", answerOf(403, nil, "Forbidden"), nil, Auth, "Authorization"},
		{"429", answerOf(429, nil, ""), nil, Down, "rate"},
		{"500", answerOf(500, nil, "boom"), nil, Down, "500"},
		{"503", answerOf(503, nil, ""), nil, Down, "503"},
		{"307", answerOf(307, http.Header{"Location": {"http://127.0.0.1:9/mcp"}}, ""), nil, Redirect, "http://127.0.0.1:9/mcp"},
		{"301", answerOf(301, nil, ""), nil, Redirect, "301"},
		{"405", answerOf(405, nil, "Method Not Allowed"), nil, Unexpected, "405"},
		{"refused", Response{}, fmt.Errorf("post: %w", syscall.ECONNREFUSED), Down, "could not be reached"},
		{"reset", Response{}, fmt.Errorf("post: %w", syscall.ECONNRESET), Down, "could not be reached"},
		{"timeout", Response{}, fmt.Errorf("post: %w", context.DeadlineExceeded), Down, "in time"},
		{"cancelled", Response{}, fmt.Errorf("post: %w", context.Canceled), Down, "cancelled"},
		{"too big", answerOf(200, nil, ""), fmt.Errorf("read: %w", ErrBodyTooLarge), Unexpected, "size limit"},
		{"other error", Response{}, errors.New("tls: bad certificate"), Down, "tls"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Judge(tt.resp, tt.err)
			if got.Verdict != tt.want || !strings.Contains(got.Reason, tt.reason) {
				t.Fatalf("Classify = %v %q, want %v containing %q", got.Verdict, got.Reason, tt.want, tt.reason)
			}
		})
	}
}

// TestReasonMasksSession: a server echoing the session id does not get it
// into the reason.
func TestReasonMasksSession(t *testing.T) {
	t.Parallel()
	resp := answerOf(404, nil, "session sess-0123456789abcdef not found")
	got := Judge(resp, nil)
	if strings.Contains(got.Reason, "sess-0123456789abcdef") || !strings.Contains(got.Reason, "sess…cdef") {
		t.Fatalf("reason %q", got.Reason)
	}
}

func TestVerdictString(t *testing.T) {
	t.Parallel()
	want := map[Verdict]string{VerdictUnknown: "unknown", Alive: "alive", Lost: "lost", Stateless: "stateless", Auth: "auth", Down: "down", Redirect: "redirect", Unexpected: "unexpected", 99: "Verdict(99)"}
	for v, s := range want {
		if v.String() != s {
			t.Errorf("%d.String() = %q, want %q", int(v), v.String(), s)
		}
	}
	if b, _ := Alive.MarshalText(); string(b) != "alive" {
		t.Errorf("MarshalText = %q", b)
	}
}
