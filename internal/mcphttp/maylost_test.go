package mcphttp

import "testing"

// What the proxy reads before it relays: every 404 and 400, a 2xx only
// when it is JSON of known length within the cap; never an event stream.
func TestMayMeanLost(t *testing.T) {
	t.Parallel()
	const max = 64 << 10
	for _, tc := range []struct {
		status int
		ctype  string
		length int64
		want   bool
	}{
		{404, "text/plain", -1, true},
		{400, "", -1, true},
		{200, "application/json", 120, true},
		{200, "Application/JSON; charset=utf-8", 120, true},
		{200, "application/vnd.api+json", 120, true},
		{200, "application/json", -1, false},
		{200, "application/json", max + 1, false},
		{200, "text/event-stream", 120, false},
		{200, "application/jsonx", 120, false},
		{202, "application/json", 120, false},
		{500, "application/json", 120, false},
		{401, "application/json", 120, false},
	} {
		if got := MayMeanLost(tc.status, tc.ctype, tc.length, tc.length, max); got != tc.want {
			t.Errorf("MayMeanLost(%d, %q, %d) = %v, want %v", tc.status, tc.ctype, tc.length, got, tc.want)
		}
		if got := MayMeanLost(tc.status, []byte(tc.ctype), tc.length, tc.length, max); got != tc.want {
			t.Errorf("MayMeanLost(%d, []byte %q, %d) = %v, want %v", tc.status, tc.ctype, tc.length, got, tc.want)
		}
		// A success whose body is not all at hand is not waited for.
		if tc.status/100 == 2 && MayMeanLost(tc.status, tc.ctype, tc.length, tc.length-1, max) {
			t.Errorf("MayMeanLost(%d, %q, %d) with a byte of it still to come: true", tc.status, tc.ctype, tc.length)
		}
	}
}

// A success carrying a session error is lost; any other success alive.
func TestJudgeRead(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		status int
		body   string
		want   Verdict
	}{
		{200, `{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"Session not found"}}`, Lost},
		{200, `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"bad params"}}`, Alive},
		{200, `{"jsonrpc":"2.0","id":1,"result":{}}`, Alive},
		{404, `session not found`, Lost},
		{400, `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Bad Request: No valid session ID provided"}}`, Lost},
	} {
		if got := JudgeRead(tc.status, nil, []byte(tc.body)).Verdict; got != tc.want {
			t.Errorf("JudgeRead(%d, %s) = %v, want %v", tc.status, tc.body, got, tc.want)
		}
	}
}

// Asked of every answer the proxy relays: no allocation.
func TestMayMeanLostAllocatesNothing(t *testing.T) {
	ct := []byte("application/json")
	if n := testing.AllocsPerRun(100, func() { _ = MayMeanLost(200, ct, 120, 120, 64<<10) }); n != 0 {
		t.Fatalf("MayMeanLost allocates %.0f times a call, want 0", n)
	}
}

// Judging a relayed success costs no allocation: it is every call's path.
func TestJudgeReadOfASuccessAllocatesNothing(t *testing.T) {
	body := []byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`)
	if n := testing.AllocsPerRun(100, func() { _ = JudgeRead(200, nil, body) }); n != 0 {
		t.Fatalf("JudgeRead of a success allocates %.0f times, want 0", n)
	}
}
