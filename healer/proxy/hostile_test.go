package proxy_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/healer/proxy"
	"github.com/mcpwatchdog/watchdog/internal/demoserver"
)

// door fronts a real server and watches what reaches it: every POST body,
// and the tools/call requests it is told to hang (read whole, never
// answered: the server that never answers) until their request ends.
type door struct {
	url  string
	hang bool

	mu     sync.Mutex
	posts  []int // each POST body's size
	called int   // tools/call requests that reached the door

	hung chan struct{} // a hung request arrived
	gone chan struct{} // a hung request's context ended (the proxy let go)
}

func startDoor(t *testing.T, upstream string, hang bool) *door {
	t.Helper()
	target, err := url.Parse(strings.TrimSuffix(upstream, "/mcp"))
	if err != nil {
		t.Fatal(err)
	}
	d := &door{hang: hang, hung: make(chan struct{}, 16), gone: make(chan struct{}, 16)}
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.FlushInterval = -1
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		call := bytes.Contains(body, []byte(`"tools/call"`))
		d.mu.Lock()
		if r.Method == http.MethodPost {
			d.posts = append(d.posts, len(body))
		}
		if call {
			d.called++
		}
		d.mu.Unlock()
		if call && d.hang {
			d.hung <- struct{}{}
			<-r.Context().Done()
			d.gone <- struct{}{}
			return
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	d.url = front.URL + "/mcp"
	return d
}

func (d *door) calls() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.called
}

func (d *door) largest() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	m := 0
	for _, n := range d.posts {
		m = max(m, n)
	}
	return m
}

// rpcAnswer is a JSON-RPC error answer's code and message.
func rpcAnswer(t *testing.T, body []byte) (code int, msg string) {
	t.Helper()
	var m struct {
		Error struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("the answer is no JSON-RPC message: %q", body)
	}
	return m.Error.Code, m.Error.Message
}

// An upstream that takes a call and never answers: the host gets a 504
// JSON-RPC error saying how long the proxy waited, the call reached the
// server once and is never sent again; and a host that gives up first
// (its own request timeout) cancels the upstream request.
func TestUpstreamThatNeverAnswers(t *testing.T) {
	onTransports(t, upstreamThatNeverAnswers)
}

func upstreamThatNeverAnswers(t *testing.T, tr transport) {
	const within = 300 * time.Millisecond
	for _, tc := range []struct {
		name     string
		hostGone bool
	}{
		{"the proxy's answer timeout", false},
		{"the host gives up first", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := startServer(t, demoserver.Options{})
			d := startDoor(t, srv.URL(), true)
			timeout := within
			if tc.hostGone {
				timeout = time.Hour
			}
			px := tr.start(t, proxy.Options{Upstream: d.url, AnswerTimeout: timeout})
			id := rawSession(t, px.url)
			if tc.hostGone {
				hostGivesUp(t, px.url, id, d)
			} else {
				resp := callCount(t, px.url, id)
				body, _ := io.ReadAll(resp.Body)
				code, msg := rpcAnswer(t, body)
				if resp.StatusCode != http.StatusGatewayTimeout || code != -32603 || !strings.Contains(msg, "did not answer") || !strings.Contains(msg, within.String()) {
					t.Errorf("the host got %d %d %q; want 504 saying the server did not answer within %s", resp.StatusCode, code, msg, within)
				}
				waitGone(t, d)
			}
			if n := d.calls(); n != 1 {
				t.Errorf("the call reached the server %d times, want once: it is never sent again", n)
			}
			if n := len(px.of(proxy.EvRecovered)); n != 0 {
				t.Errorf("%d recoveries for a server that was only slow", n)
			}
			tr.served(t, px)
		})
	}
}

// hostGivesUp sends a call with the host's own timeout: cancelled once the
// call hangs at the server, and the proxy must let go upstream.
func hostGivesUp(t *testing.T, u, id string, d *door) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, u, strings.NewReader(countCall))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", id)
	done := make(chan error, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		done <- err
	}()
	select {
	case <-d.hung:
	case <-time.After(10 * time.Second):
		t.Fatal("the call never reached the server")
	}
	cancel()
	<-done
	waitGone(t, d)
}

func waitGone(t *testing.T, d *door) {
	t.Helper()
	select {
	case <-d.gone:
	case <-time.After(10 * time.Second):
		t.Fatal("the proxy never let go of the request the server did not answer")
	}
}

// A body over the limit (4 MiB + 1, with and without a Content-Length):
// 413, nothing of it sent upstream, and another host's calls go on.
func TestOversizedBodyWhileAnotherHostCalls(t *testing.T) {
	onTransports(t, oversizedBodyWhileAnotherHostCalls)
}

func oversizedBodyWhileAnotherHostCalls(t *testing.T, tr transport) {
	srv := startServer(t, demoserver.Options{})
	d := startDoor(t, srv.URL(), false)
	px := tr.start(t, proxy.Options{Upstream: d.url})
	other, big := rawSession(t, px.url), rawSession(t, px.url)
	pad := strings.Repeat("x", proxy.DefaultMaxRequest+1-len(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"count","arguments":{"pad":""}}}`))
	body := `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"count","arguments":{"pad":"` + pad + `"}}}`
	if len(body) != proxy.DefaultMaxRequest+1 {
		t.Fatalf("body of %d bytes", len(body))
	}
	for _, chunked := range []bool{false, true} {
		var wg sync.WaitGroup
		wg.Go(func() { otherHostCalls(t, px.url, other, 20, false) })
		status := postBig(t, px.url, big, body, chunked)
		wg.Wait()
		if status != http.StatusRequestEntityTooLarge {
			t.Errorf("a body of 4 MiB + 1 (chunked %v): %d, want 413", chunked, status)
		}
	}
	if n := d.largest(); n > 1<<10 {
		t.Errorf("the server got a POST of %d bytes: the big one must not reach it", n)
	}
	if got := srv.Count(); got != 40 {
		t.Errorf("the tool ran %d times, want the other host's 40", got)
	}
	tr.served(t, px)
}

// postBig sends body as host session id, with a Content-Length or chunked.
func postBig(t *testing.T, u, id, body string, chunked bool) int {
	t.Helper()
	var r io.Reader = strings.NewReader(body)
	if chunked {
		r = io.MultiReader(r) // no length known: sent chunked
	}
	req, _ := http.NewRequest(http.MethodPost, u, r)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", id)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("the big request: %v", err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}

// otherHostCalls makes n calls as host session id, each on a connection
// of its own when fresh (a new connection must get in too), reporting
// (not stopping at) any that fails: it runs beside the test's goroutine.
func otherHostCalls(t *testing.T, u, id string, n int, fresh bool) {
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: fresh}}
	defer client.CloseIdleConnections()
	for i := range n {
		req, _ := hostPost(u, id, countCall)
		resp, err := client.Do(req)
		if err != nil {
			t.Errorf("the other host's call %d: %v", i, err)
			continue
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("the other host's call %d: %d", i, resp.StatusCode)
		}
	}
}
