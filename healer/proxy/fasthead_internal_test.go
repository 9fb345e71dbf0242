package proxy

import (
	"bufio"
	"bytes"
	"net/http"
	"strconv"
	"testing"
)

// headSeeds are heads hosts send, and some they should not.
func headSeeds() []string {
	return []string{
		"POST /S/mcp HTTP/1.1\r\nHost: 127.0.0.1:1\r\nContent-Type: application/json\r\nMcp-Session-Id: abc\r\nContent-Length: 2\r\n\r\n",
		"POST /S/mcp HTTP/1.1\r\nhost: localhost\r\naccept-encoding: gzip, deflate\r\nconnection: keep-alive\r\nsec-fetch-mode: cors\r\ncontent-length: 0\r\n\r\n",
		"POST /S/mcp HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\n",
		"POST /S/mcp HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n",
		"POST /S/mcp HTTP/1.1\r\nHost: a\r\nX-Folded: a\r\n b\r\nContent-Length: 0\r\n\r\n",
		"POST /S/mcp HTTP/1.1\r\nHost: a\r\nContent-Length: +1\r\n\r\n",
		"POST /S/mcp HTTP/1.1\r\nHost: a\r\nBad Name: 1\r\nContent-Length: 0\r\n\r\n",
		"POST /S/mcp HTTP/1.1\r\nHost: a\r\nX: a\x00b\r\nContent-Length: 0\r\n\r\n",
		"GET /S/mcp HTTP/1.1\r\nHost: a\r\n\r\n",
		"POST /S/mcp HTTP/1.0\r\nHost: a\r\nContent-Length: 0\r\n\r\n",
	}
}

// headOf is raw up to its first blank line, nil without one.
func headOf(raw []byte) []byte {
	end := bytes.Index(raw, []byte("\r\n\r\n"))
	if end < 0 {
		return nil
	}
	return raw[:end+4]
}

// FuzzParseHead: a head the fast path takes is one net/http reads the
// same: the same method, target, Host, length and session, and net/http
// would not refuse it. What the fast path passes on byte for byte is
// never something the general path would have read otherwise.
func FuzzParseHead(f *testing.F) {
	for _, s := range headSeeds() {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if raw = headOf(raw); raw == nil {
			return
		}
		var h reqHead
		// What the fast path takes: a head it reads, for its endpoint
		// (fastWhy), from a Host that passes the guard.
		if parseHead(raw, &h) != "" || string(h.target) != "/S/mcp" || !loopbackHostPort(string(h.host)) {
			return
		}
		req, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(append(bytes.Clone(raw), make([]byte, max(h.length, 0))...))))
		if err != nil {
			t.Fatalf("the fast path takes a head net/http refuses (%v): %q", err, raw)
		}
		switch {
		case req.Method != string(h.method), req.RequestURI != string(h.target), req.Host != string(h.host):
			t.Fatalf("read as %s %s (Host %q), net/http reads %s %s (Host %q): %q", h.method, h.target, h.host, req.Method, req.RequestURI, req.Host, raw)
		case req.ContentLength != h.length || len(req.TransferEncoding) > 0:
			t.Fatalf("length %d, net/http's %d %v: %q", h.length, req.ContentLength, req.TransferEncoding, raw)
		case req.Header.Get("Mcp-Session-Id") != string(h.session):
			t.Fatalf("session %q, net/http's %q: %q", h.session, req.Header.Get("Mcp-Session-Id"), raw)
		case req.Close != h.close:
			t.Fatalf("close %v, net/http's %v: %q", h.close, req.Close, raw)
		}
		for i := range h.n {
			if h.lines[i].kind == lineKept && !h.sameKept(keptHeader(req.Header)) {
				t.Fatalf("the headers kept for replays differ from net/http's: %q", raw)
			}
		}
	})
}

// FuzzParseAnswer: an answer head the fast path takes is one net/http's
// client reads the same: status, framing, session.
func FuzzParseAnswer(f *testing.F) {
	for _, s := range []string{
		"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nMcp-Session-Id: x\r\nTransfer-Encoding: chunked\r\n\r\n",
		"HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\n\r\n",
		"HTTP/1.0 200 OK\r\nConnection: keep-alive\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
		"HTTP/1.1 204\r\nConnection: close, X-A\r\nX-A: 1\r\n\r\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if raw = headOf(raw); raw == nil {
			return
		}
		var a ansHead
		if parseAnswer(raw, &a) != nil {
			return
		}
		resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(raw)), &http.Request{Method: http.MethodPost})
		if err != nil {
			if a.status >= 200 { // net/http refuses some heads the fast path would relay as they are: fine while it frames them alike
				t.Logf("net/http refuses %q: %v", raw, err)
			}
			return
		}
		chunked := len(resp.TransferEncoding) > 0 && resp.TransferEncoding[len(resp.TransferEncoding)-1] == "chunked"
		switch {
		case resp.StatusCode != a.status:
			t.Fatalf("status %d, net/http's %d: %q", a.status, resp.StatusCode, raw)
		case chunked != a.chunked:
			t.Fatalf("chunked %v, net/http's %v: %q", a.chunked, chunked, raw)
		case !a.chunked && !a.bodyless() && a.length >= 0 && resp.ContentLength != a.length:
			t.Fatalf("length %d, net/http's %d: %q", a.length, resp.ContentLength, raw)
		case string(a.session) != resp.Header.Get("Mcp-Session-Id"):
			t.Fatalf("session %q, net/http's %q: %q", a.session, resp.Header.Get("Mcp-Session-Id"), raw)
		}
	})
}

// The header lines the fast path passes on are those the general path
// would (copyHeaders), byte for byte, and it keeps the same for replays.
func TestFastHeadLines(t *testing.T) {
	raw := "POST /S/mcp HTTP/1.1\r\nHost: 127.0.0.1:9\r\nAuthorization: Bearer t\r\naccept-encoding: gzip\r\nConnection: keep-alive\r\n" +
		"Keep-Alive: timeout=5\r\nMcp-Session-Id: s\r\nmcp-protocol-version: 2025-06-18\r\nTE: trailers\r\nsec-fetch-mode: cors\r\nContent-Length: 12\r\n\r\n"
	var h reqHead
	if why := parseHead([]byte(raw), &h); why != "" {
		t.Fatalf("not taken: %s", why)
	}
	var passed []string
	for i := range h.n {
		if k := h.lines[i].kind; k == lineKept || k == linePassed {
			passed = append(passed, string(h.name(i)))
		}
	}
	if want := []string{"Authorization", "mcp-protocol-version", "sec-fetch-mode"}; !slicesEqual(passed, want) {
		t.Errorf("passed on %v, want %v", passed, want)
	}
	req, _ := http.ReadRequest(bufio.NewReader(bytes.NewReader([]byte(raw + "xxxxxxxxxxxx"))))
	if !h.sameKept(keptHeader(req.Header)) || h.length != 12 || string(h.session) != "s" {
		t.Errorf("kept %v, length %d, session %q", keptHeader(req.Header), h.length, h.session)
	}
	if got := strconv.Itoa(h.kept); got != "2" {
		t.Errorf("%s kept lines, want Authorization and sec-fetch-mode", got)
	}
}

func slicesEqual(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// BenchmarkParseHead: reading a host's head as a TypeScript-SDK client
// sends it, the fast path's own work on every call.
func BenchmarkParseHead(b *testing.B) {
	raw := []byte("POST /0123456789abcdef0123456789abcdef/mcp HTTP/1.1\r\nhost: 127.0.0.1:41234\r\nconnection: keep-alive\r\n" +
		"content-type: application/json\r\naccept: application/json, text/event-stream\r\nmcp-session-id: 3f2a9c4e-1b7d-4e0a-9c2f-5d6e7f8a9b0c\r\n" +
		"mcp-protocol-version: 2025-06-18\r\nuser-agent: node\r\naccept-language: *\r\nsec-fetch-mode: cors\r\naccept-encoding: gzip, deflate\r\ncontent-length: 98\r\n\r\n")
	var h reqHead
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		if why, _ := scanHead(raw, &h); why != "" {
			b.Fatal(why)
		}
	}
}

// headEnd finds a head's blank line as net/http reads lines (LF, a CR
// before it dropped), never in the body after it, and waits for one.
func TestHeadEnd(t *testing.T) {
	for _, tc := range []struct {
		buf       string
		want      int
		malformed bool // a head parseAnswer refuses
	}{
		{"HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nbody", 38, false},
		{"HTTP/1.1 200 OK\nContent-Length: 4\n\nbody", 35, false},
		{"HTTP/1.1 200 OK\nA: 1\r\n\r\nb\n\n", 24, false},                // mixed line ends
		{"HTTP/1.1 200 OK\nA: 1\n\r\n{\"a\":\"\r\n\r\n\"}", 23, false},   // bare LF lines, CRLF blank line; CRLFCRLF in the body
		{"HTTP/1.1 200 OK\r\nA: 1\r\n\n{\"a\":\"\r\n\r\n\"}", 24, false}, // CRLF lines, LF blank line
		{"HTTP/1.1 200 OK\r\nContent-Length: 4\r\n", 0, false},           // not whole yet
		{"HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r", 0, false},         // the blank line's LF not here yet
		{"HTTP/1.1 200 OK\r\nA: x\ry\r\n\r\n", 27, true},                 // a CR inside a line is not a line end
		{"", 0, false},
	} {
		got := headEnd([]byte(tc.buf))
		if got != tc.want {
			t.Errorf("headEnd(%q) = %d, want %d", tc.buf, got, tc.want)
		}
		if got > 0 && !tc.malformed {
			var a ansHead
			if err := parseAnswer([]byte(tc.buf[:got]), &a); err != nil {
				t.Errorf("parseAnswer of the head headEnd found in %q: %v", tc.buf, err)
			}
		}
	}
}
