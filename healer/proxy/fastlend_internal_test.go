package proxy

import (
	"bufio"
	"net/http"
	"strings"
	"testing"
)

// bodiless says a head has no body only where net/http reads none (or
// refuses the head): otherwise net/http would wait for a body the fast
// path holds back, and a request lent to it would hang.
func TestBodilessAgreesWithNetHTTP(t *testing.T) {
	for _, tc := range []struct {
		head string
		want bool
	}{
		{"GET /S/mcp HTTP/1.1\r\nHost: a\r\nAccept: text/event-stream\r\n\r\n", true},
		{"DELETE /S/mcp HTTP/1.1\r\nHost: a\r\nMcp-Session-Id: x\r\ncontent-length: 0\r\n\r\n", true},
		{"GET /S/mcp HTTP/1.1\r\nHost: a\r\nContent-Length:  0 \r\n\r\n", true},
		{"GET /S/mcp HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\n", false},
		{"GET /S/mcp HTTP/1.1\r\nHost: a\r\nCONTENT-LENGTH: 0\r\nContent-Length: 5\r\n\r\n", false},
		{"DELETE /S/mcp HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n", false},
		{"GET /S/mcp HTTP/1.1\r\nHost: a\r\nX: 1\nContent-Length: 5\r\n\r\n", false},
		{"GET /S/mcp HTTP/1.1\r\nHost: a\r\nX: 1\r\n Content-Length: 5\r\n\r\n", true},
	} {
		if got := bodiless([]byte(tc.head)); got != tc.want {
			t.Errorf("bodiless(%q) = %v, want %v", tc.head, got, tc.want)
		}
		if !tc.want {
			continue
		}
		r, err := http.ReadRequest(bufio.NewReader(strings.NewReader(tc.head)))
		if err == nil && (r.ContentLength != 0 || len(r.TransferEncoding) > 0) {
			t.Errorf("%q: bodiless, but net/http reads a body of %d (%v)", tc.head, r.ContentLength, r.TransferEncoding)
		}
	}
}
