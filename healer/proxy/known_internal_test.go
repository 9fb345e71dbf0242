package proxy

import "testing"

// What the attach and last-known steps add to a forwarded call costs no
// allocation: telling a call from a kept list, and reading whether its
// session waits for its server.
func TestKeptStepsAllocateNothingOnACall(t *testing.T) {
	call := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"count","arguments":{}}}`)
	p := &Proxy{sessions: &table{byID: map[string]*session{}}}
	s := &session{hostID: "h", upstream: "u"}
	if n := testing.AllocsPerRun(100, func() {
		if keptListMethod(call) != "" {
			t.Fatal("a tool call taken for a list")
		}
		if up, _, waiting := p.currentOrWaiting(s); up != "u" || waiting {
			t.Fatal("the session read wrong")
		}
	}); n != 0 {
		t.Errorf("%v allocations per call, want 0", n)
	}
	for body, want := range map[string]string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`:                            "tools/list",
		`{"jsonrpc":"2.0","id":1,"method":"resources/templates/list","params":{}}`:  "resources/templates/list",
		`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":"x"}}`:    "",
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a/list"}}`: "",
	} {
		if got := keptListMethod([]byte(body)); got != want {
			t.Errorf("keptListMethod(%s) = %q, want %q", body, got, want)
		}
	}
}
