package mcphttp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestRedirectNotFollowed: a 307 to another loopback origin is handed back;
// the second server never sees a request, let alone a session id.
func TestRedirectNotFollowed(t *testing.T) {
	t.Parallel()
	second := &recorder{}
	hs2 := httptest.NewServer(second)
	t.Cleanup(hs2.Close)
	hs1 := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, hs2.URL+"/mcp", http.StatusTemporaryRedirect)
	}))
	t.Cleanup(hs1.Close)

	c := newClient(t, hs1.URL+"/mcp", func(o *Options) { o.Headers = map[string]string{"Authorization": "Bearer secret"} })
	ctx := testCtx(t)
	calls := []func() (Response, error){
		func() (Response, error) { return c.Ping(ctx, "session-0123456789abcdef", "2025-06-18") },
		func() (Response, error) { return c.Delete(ctx, "session-0123456789abcdef") },
		func() (Response, error) { return c.OpenStream(ctx, "session-0123456789abcdef", "2025-06-18") },
		func() (Response, error) { return c.Do(ctx, Request{Method: "server/discover", Modern: true}) },
	}
	for i, call := range calls {
		resp, err := call()
		if err != nil || resp.Status != http.StatusTemporaryRedirect {
			t.Fatalf("call %d: %d %v", i, resp.Status, err)
		}
		got := Judge(resp, err)
		if got.Verdict != Redirect || !strings.Contains(got.Reason, hs2.URL) {
			t.Fatalf("call %d: %v %q", i, got.Verdict, got.Reason)
		}
	}
	if n := len(second.all()); n != 0 {
		t.Fatalf("the redirect target received %d requests", n)
	}
}

// TestRedirectNotFollowedWithOwnHTTPClient: a caller's http.Client that
// would follow redirects is tamed too.
func TestRedirectNotFollowedWithOwnHTTPClient(t *testing.T) {
	t.Parallel()
	second := &recorder{}
	hs2 := httptest.NewServer(second)
	t.Cleanup(hs2.Close)
	hs1 := httptest.NewServer(http.RedirectHandler(hs2.URL, http.StatusFound))
	t.Cleanup(hs1.Close)
	own := &http.Client{}
	c := newClient(t, hs1.URL, func(o *Options) { o.HTTPClient = own })
	resp, err := c.Ping(testCtx(t), "session-0123456789abcdef", "")
	if err != nil || resp.Status != http.StatusFound || len(second.all()) != 0 {
		t.Fatalf("status %d, err %v, target saw %d requests", resp.Status, err, len(second.all()))
	}
	if own.CheckRedirect != nil {
		t.Fatal("the caller's client was modified")
	}
}

// TestBodyCap: an answer over MaxBody is an error, whether one big JSON body
// or an SSE stream that never sends our response.
func TestBodyCap(t *testing.T) {
	t.Parallel()
	const max = 64 << 10
	big := `{"jsonrpc":"2.0","id":"watchdog-1","result":{"pad":"` + strings.Repeat("x", 2*max) + `"}}`
	tests := []struct {
		name    string
		handler http.HandlerFunc
		wantErr bool
	}{
		{"big JSON", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, big)
		}, true},
		{"endless SSE", func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "text/event-stream")
			for r.Context().Err() == nil {
				if _, err := fmt.Fprint(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\"}\n\n"); err != nil {
					return
				}
			}
		}, true},
		{"exactly at the cap", func(w http.ResponseWriter, r *http.Request) {
			body := `{"jsonrpc":"2.0","id":"watchdog-1","result":{}}`
			fmt.Fprint(w, body+strings.Repeat(" ", max-len(body)))
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			hs := httptest.NewServer(tt.handler)
			t.Cleanup(hs.Close)
			c := newClient(t, hs.URL, func(o *Options) { o.MaxBody = max })
			resp, err := c.Ping(testCtx(t), "", "")
			if got := errors.Is(err, ErrBodyTooLarge); got != tt.wantErr {
				t.Fatalf("err %v, want ErrBodyTooLarge=%v", err, tt.wantErr)
			}
			if int64(len(resp.Body)) > max {
				t.Fatalf("kept %d bytes, cap %d", len(resp.Body), max)
			}
			want := Alive
			if tt.wantErr {
				want = Unexpected
			}
			if got := Judge(resp, err); got.Verdict != want {
				t.Fatalf("verdict %v %q, want %v", got.Verdict, got.Reason, want)
			}
		})
	}
}

// TestSSEStopsAtOurResponse: the server keeps the stream open after our
// response; Do returns with it instead of waiting, skipping messages that
// are not ours.
func TestSSEStopsAtOurResponse(t *testing.T) {
	t.Parallel()
	stop := make(chan struct{})
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) // so the server notices when the client leaves
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, ": comment\n\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n\n")
		fmt.Fprint(w, "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"other\":true}}\n\n")
		fmt.Fprint(w, "id: 7\r\ndata: {\"jsonrpc\":\"2.0\",\r\ndata:\"id\":\"watchdog-1\",\"result\":{\"ours\":true}}\r\n\r\n")
		w.(http.Flusher).Flush()
		hold(r, stop) // keep the stream open
	}))
	t.Cleanup(hs.Close)
	t.Cleanup(func() { close(stop) }) // runs before hs.Close
	c := newClient(t, hs.URL, func(o *Options) { o.Timeout = time.Minute })
	resp, err := c.Ping(testCtx(t), "", "")
	if err != nil || resp.RPC == nil || string(resp.RPC.Result) != `{"ours":true}` {
		t.Fatalf("rpc %+v, err %v", resp.RPC, err)
	}
}

// TestDown: timeouts and refused connections are Down, never Lost.
func TestDown(t *testing.T) {
	t.Parallel()
	stop := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		hold(r, stop)
	}))
	t.Cleanup(hang.Close)
	t.Cleanup(func() { close(stop) })
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + l.Addr().String() + "/mcp"
	l.Close()

	for _, tc := range []struct {
		name, url string
		want      error
	}{
		{"timeout", hang.URL, context.DeadlineExceeded},
		{"refused", refused, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := newClient(t, tc.url, func(o *Options) { o.Timeout = 200 * time.Millisecond })
			resp, err := c.Ping(testCtx(t), "session-0123456789abcdef", "2025-06-18")
			if err == nil || (tc.want != nil && !errors.Is(err, tc.want)) {
				t.Fatalf("err %v, want %v", err, tc.want)
			}
			if got := Judge(resp, err); got.Verdict != Down {
				t.Fatalf("verdict %v %q", got.Verdict, got.Reason)
			}
		})
	}
}

// TestStatelessIgnoresSessionHeader: a stateless SDK server answers a legacy
// ping carrying a session header: Alive, nothing to lose.
func TestStatelessIgnoresSessionHeader(t *testing.T) {
	t.Parallel()
	s := newSDKServer(t, mcp.StreamableHTTPOptions{Stateless: true}, nil)
	c := newClient(t, s.http.URL, nil)
	resp, err := c.Ping(testCtx(t), "made-up-session-0123456789", "2025-06-18")
	if got := Judge(resp, err); got.Verdict != Alive {
		t.Fatalf("%d %v %q", resp.Status, got.Verdict, got.Reason)
	}
}

// hold blocks until the client leaves or the test ends.
func hold(r *http.Request, stop <-chan struct{}) {
	select {
	case <-r.Context().Done():
	case <-stop:
	}
}
