package proxy

import (
	"bytes"
	"io"
	"net/http/httputil"
	"testing"
)

// chunkedOf encodes data in chunks of the given sizes (cycled), with a
// trailer section when trailer is set, as a server would send it.
func chunkedOf(data []byte, sizes []int, trailer string) []byte {
	var out bytes.Buffer
	w := httputil.NewChunkedWriter(&out)
	for i := 0; len(data) > 0; i++ {
		n := len(data)
		if len(sizes) > 0 {
			n = min(n, max(sizes[i%len(sizes)], 1))
		}
		_, _ = w.Write(data[:n])
		data = data[n:]
	}
	_ = w.Close() // "0\r\n"
	out.WriteString(trailer + "\r\n")
	return out.Bytes()
}

// scanIn feeds body to a scanner in pieces of at most step bytes and
// returns the bytes it took and the data it handed over.
func scanIn(t testing.TB, body []byte, step int) (took int, data []byte, err error) {
	t.Helper()
	var c chunkScan
	for took < len(body) && !c.done() {
		end := min(len(body), took+step)
		n, err := c.feed(body[took:end], func(p []byte) { data = append(data, p...) })
		took += n
		if err != nil {
			return took, data, err
		}
	}
	if !c.done() {
		return took, data, io.ErrUnexpectedEOF
	}
	return took, data, nil
}

func TestChunkScanFindsTheEnd(t *testing.T) {
	for _, tc := range []struct {
		name    string
		body    string
		data    string
		invalid bool
	}{
		{name: "one chunk", body: "5\r\nhello\r\n0\r\n\r\n", data: "hello"},
		{name: "an SSE event, then the end apart", body: "19\r\nevent: message\ndata: {}\n\n\r\n0\r\n\r\n", data: "event: message\ndata: {}\n\n"},
		{name: "upper-case hex and an extension", body: "A;name=v\r\n0123456789\r\n0\r\n\r\n", data: "0123456789"},
		{name: "trailer fields", body: "1\r\nx\r\n0\r\nX-Trace: 1\r\nX-More: 2\r\n\r\n", data: "x"},
		{name: "bare LF after a size", body: "1\nx\r\n0\n\n", data: "x"},
		{name: "no CRLF after data", body: "1\r\nxy\r\n0\r\n\r\n", invalid: true},
		{name: "no digits", body: "\r\nx\r\n", invalid: true},
		{name: "too many digits", body: "00000000000000001\r\nx\r\n0\r\n\r\n", invalid: true},
		{name: "past int64", body: "fffffffffffffff\r\n", invalid: true},
		{name: "garbage size", body: "zz\r\n", invalid: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for step := 1; step <= len(tc.body); step++ {
				took, data, err := scanIn(t, []byte(tc.body+"NEXT ANSWER"), step)
				if tc.invalid {
					if err == nil {
						t.Fatalf("step %d: no error for %q", step, tc.body)
					}
					continue
				}
				if err != nil || took != len(tc.body) || string(data) != tc.data {
					t.Fatalf("step %d: took %d of %d, data %q, err %v; want all of the body, %q", step, took, len(tc.body), data, err, tc.data)
				}
			}
		})
	}
}

// FuzzChunkScan: any data in any chunking, fed in any pieces: the scanner
// takes exactly the body, hands over exactly the data (as Go's reader
// decodes it), and nothing of what follows.
func FuzzChunkScan(f *testing.F) {
	f.Add([]byte("hello, world"), []byte{3, 1, 200}, uint8(1), "")
	f.Add(bytes.Repeat([]byte("data: x\n\n"), 500), []byte{0}, uint8(7), "X-T: 1\r\n")
	f.Fuzz(func(t *testing.T, data, sizes []byte, step uint8, trailer string) {
		if bytes.ContainsAny([]byte(trailer), "\r\n") || trailer != "" && !bytes.ContainsRune([]byte(trailer), ':') {
			trailer = ""
		} else if trailer != "" {
			trailer += "\r\n"
		}
		cs := make([]int, len(sizes))
		for i, s := range sizes {
			cs[i] = int(s) * 7
		}
		body := chunkedOf(data, cs, trailer)
		took, got, err := scanIn(t, append(bytes.Clone(body), "HTTP/1.1 200 OK\r\n"...), max(int(step), 1))
		if err != nil || took != len(body) || !bytes.Equal(got, data) {
			t.Fatalf("took %d of %d (err %v), data %d bytes of %d", took, len(body), err, len(got), len(data))
		}
		want, err := io.ReadAll(httputil.NewChunkedReader(bytes.NewReader(body)))
		if err != nil || !bytes.Equal(want, got) {
			t.Fatalf("Go's reader: %v, %d bytes; the scanner %d", err, len(want), len(got))
		}
	})
}
