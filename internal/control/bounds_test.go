package control

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// bigHandler answers status with a document of about size bytes.
type bigHandler struct {
	testHandler
	size int
}

func (h *bigHandler) Status(context.Context) (any, error) {
	return map[string]any{"servers": []any{}, "pad": strings.Repeat("x", h.size)}, nil
}

// TestIdleConnectionsClosed: a connection that sends nothing, stops halfway
// through a request, or keeps alive after its answer is closed once idle
// for the idle timeout; the request that came gets its whole answer first.
func TestIdleConnectionsClosed(t *testing.T) {
	t.Parallel()
	const idle = 300 * time.Millisecond
	// bound is well under the 5 s header timeout that once was the only
	// bound, and under the forever of an idle keep-alive connection.
	const bound = 3 * time.Second
	tests := []struct {
		name       string
		send       string
		wantAnswer bool
	}{
		{"sends nothing", "", false},
		{"half a request", "GET /status HTTP/1.1\r\nHost: w", false},
		{"keep-alive after an answer", "GET /status HTTP/1.1\r\nHost: watchdog\r\n\r\n", true},
	}
	path := socketPath(t)
	startServeIdle(t, path, &testHandler{}, idle)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			conn, err := net.Dial("unix", path)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if err := conn.SetDeadline(time.Now().Add(10 * time.Second)); err != nil {
				t.Fatal(err)
			}
			if _, err := io.WriteString(conn, tt.send); err != nil {
				t.Fatal(err)
			}
			br := bufio.NewReader(conn)
			if tt.wantAnswer {
				resp, err := http.ReadResponse(br, nil)
				if err != nil {
					t.Fatalf("no answer: %v", err)
				}
				body, err := io.ReadAll(resp.Body)
				if err != nil || resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "nowledge-mem") {
					t.Fatalf("answer %d %q (%v)", resp.StatusCode, body, err)
				}
			}
			start := time.Now()
			rest, err := io.ReadAll(br) // returns at the server's close
			if err != nil {
				t.Fatalf("connection not closed by the server: %v (read %q)", err, rest)
			}
			if took := time.Since(start); took > bound {
				t.Errorf("closed after %v idle, want within %v of the %v timeout", took, bound, idle)
			}
		})
	}
}

// TestAnswerTooLarge: an answer over the client's read limit is reported as
// cut, never as invalid JSON, whether its length is announced or not.
func TestAnswerTooLarge(t *testing.T) {
	t.Parallel()
	t.Run("our server, length announced", func(t *testing.T) {
		t.Parallel()
		path := socketPath(t)
		startServe(t, path, &bigHandler{size: maxResponseBytes})
		assertCut(t, Dial(path), maxResponseBytes)
	})
	t.Run("chunked, no length", func(t *testing.T) {
		t.Parallel()
		path := filepath.Join(t.TempDir(), "c.sock")
		ln, err := net.Listen("unix", path)
		if err != nil {
			t.Fatal(err)
		}
		srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			for range 4 {
				fmt.Fprintf(w, "%s", strings.Repeat(" ", 100))
				w.(http.Flusher).Flush()
			}
			fmt.Fprint(w, "{}")
		})}
		go func() { _ = srv.Serve(ln) }()
		t.Cleanup(func() { _ = srv.Close() })
		c := Dial(path)
		c.maxAnswer = 256
		assertCut(t, c, 256)
	})
}

func assertCut(t *testing.T, c *Client, limit int) {
	t.Helper()
	_, err := c.Status(context.Background())
	if !errors.Is(err, ErrAnswerTooLarge) {
		t.Fatalf("Status = %v, want ErrAnswerTooLarge", err)
	}
	want := fmt.Sprintf("status answer larger than %d bytes; cut", limit)
	if msg := err.Error(); !strings.Contains(msg, want) || strings.Contains(msg, "invalid JSON") {
		t.Errorf("error %q, want it to say %q and not invalid JSON", msg, want)
	}
}

// TestRequestTooLarge: a request with a body or headers past the caps is
// refused with its status code; the daemon never reads it whole.
func TestRequestTooLarge(t *testing.T) {
	t.Parallel()
	path := socketPath(t)
	h := &testHandler{}
	startServe(t, path, h)
	hc := &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", path)
		},
	}}
	tests := []struct {
		name   string
		body   string
		header string
		want   int
	}{
		{"body", strings.Repeat("x", maxRequestBody+1), "", http.StatusRequestEntityTooLarge},
		{"headers", "", strings.Repeat("y", maxHeaderBytes+8192), http.StatusRequestHeaderFieldsTooLarge},
		{"small body", "{}", "", http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodPost, "http://watchdog/heal?server=other", strings.NewReader(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			if tt.header != "" {
				req.Header.Set("X-Pad", tt.header)
			}
			resp, err := hc.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tt.want {
				t.Errorf("status %d, want %d", resp.StatusCode, tt.want)
			}
		})
	}
	if got := h.calls(); len(got) != 1 {
		t.Errorf("heals done: %v, want only the small request's", got)
	}
}
