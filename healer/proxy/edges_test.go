package proxy_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/healer/proxy"
	"github.com/mcpwatchdog/watchdog/internal/demoserver"
)

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw-host","version":"1"}}}`

// countCall calls the demo server's count tool.
const countCall = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"count","arguments":{}}}`

// hostPost is one JSON-RPC body as a host would POST it, on its session
// (none when "").
func hostPost(u, session, body string) (*http.Request, error) {
	req, err := http.NewRequest(http.MethodPost, u, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	}
	return req, nil
}

// post sends one JSON-RPC body as a host would, with extra headers.
func post(t *testing.T, u, session, body string, extra ...string) *http.Response {
	t.Helper()
	req, err := hostPost(u, session, body)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(extra); i += 2 {
		if extra[i] == "Host" {
			req.Host = extra[i+1]
			continue
		}
		req.Header.Set(extra[i], extra[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// rawSession opens a session as a host that opens no GET stream.
func rawSession(t *testing.T, u string) string {
	t.Helper()
	resp := post(t, u, "", initBody)
	id := resp.Header.Get("Mcp-Session-Id")
	_, _ = io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != http.StatusOK || id == "" {
		t.Fatalf("initialize through the proxy: %d, session %q", resp.StatusCode, id)
	}
	if r := post(t, u, id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); r.StatusCode/100 != 2 {
		t.Fatalf("notifications/initialized: %d", r.StatusCode)
	}
	return id
}

func callCount(t *testing.T, u, session string) *http.Response {
	t.Helper()
	return post(t, u, session, countCall)
}

// The proxy's own answers to what it will not forward.
func TestRefusals(t *testing.T) {
	onTransports(t, refusals)
}

func refusals(t *testing.T, tr transport) {
	srv := startServer(t, demoserver.Options{})
	px := tr.start(t, proxy.Options{Upstream: srv.URL(), MaxRequest: 1 << 10})
	for _, tc := range []struct {
		name   string
		resp   func() *http.Response
		status int
		says   string
	}{
		{"unknown session", func() *http.Response { return callCount(t, px.url, "0123456789abcdef") }, http.StatusNotFound, "Session not found"},
		{"a web page's Origin", func() *http.Response { return post(t, px.url, "", initBody, "Origin", "https://evil.example") }, http.StatusForbidden, "web page"},
		{"a rebound Host", func() *http.Response { return post(t, px.url, "", initBody, "Host", "evil.example:80") }, http.StatusForbidden, "another machine"},
		{"a request over the limit", func() *http.Response {
			return post(t, px.url, "", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"`+strings.Repeat("x", 2<<10)+`"}}`)
		}, http.StatusRequestEntityTooLarge, "limit of 1024 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := tc.resp()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tc.status || !strings.Contains(string(body), tc.says) {
				t.Errorf("answer %d %q; want %d saying %q", resp.StatusCode, body, tc.status, tc.says)
			}
		})
	}
	if n := len(srv.SessionIDs()); n != 0 {
		t.Errorf("the server got %d sessions from refused requests", n)
	}
	tr.served(t, px)
}

// Only a session-lost answer is retried: a 500 reaches the host as it
// came, and the server saw the request once.
func TestFailuresPassThroughUntouched(t *testing.T) {
	onTransports(t, failuresPassThroughUntouched)
}

func failuresPassThroughUntouched(t *testing.T, tr transport) {
	srv := startServer(t, demoserver.Options{})
	target, _ := url.Parse(strings.TrimSuffix(srv.URL(), "/mcp"))
	var calls, refused atomic.Int64
	rp := httputil.NewSingleHostReverseProxy(target)
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		switch {
		case bytes.Contains(body, []byte(`"tools/call"`)):
			calls.Add(1)
			http.Error(w, "overloaded", http.StatusInternalServerError)
		case bytes.Contains(body, []byte(`"ping"`)):
			refused.Add(1)
			http.Redirect(w, r, "http://127.0.0.1:1/elsewhere", http.StatusTemporaryRedirect)
		default:
			rp.ServeHTTP(w, r)
		}
	}))
	defer front.Close()
	px := tr.start(t, proxy.Options{Upstream: front.URL + "/mcp"})
	id := rawSession(t, px.url)
	if resp := callCount(t, px.url, id); resp.StatusCode != http.StatusInternalServerError {
		t.Errorf("a 500 reached the host as %d", resp.StatusCode)
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("the server saw the failed call %d times, want 1: a 500 is never retried", n)
	}
	resp := post(t, px.url, id, `{"jsonrpc":"2.0","id":8,"method":"ping"}`)
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusBadGateway || resp.Header.Get("Location") != "" || !strings.Contains(string(body), "redirect") {
		t.Errorf("a redirect reached the host as %d %q (Location %q); want 502 saying so, no Location", resp.StatusCode, body, resp.Header.Get("Location"))
	}
	if len(px.of(proxy.EvRecovered)) != 0 {
		t.Error("the proxy healed a failure that was no lost session")
	}
	tr.served(t, px)
}

// DELETE ends the upstream session and the proxy's; the id is unknown after.
func TestHostDeleteEndsUpstream(t *testing.T) {
	onTransports(t, hostDeleteEndsUpstream)
}

func hostDeleteEndsUpstream(t *testing.T, tr transport) {
	srv := startServer(t, demoserver.Options{})
	px := tr.start(t, proxy.Options{Upstream: srv.URL()})
	id := rawSession(t, px.url)
	up := srv.SessionIDs()[0]
	req, _ := http.NewRequest(http.MethodDelete, px.url, nil)
	req.Header.Set("Mcp-Session-Id", id)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		t.Fatalf("DELETE through the proxy: %d", resp.StatusCode)
	}
	waitFor(t, "the server to end the session", func() bool {
		for _, e := range srv.Ended() {
			if e.ID == up && e.Reason == demoserver.ReasonDeleted {
				return true
			}
		}
		return false
	})
	if r := callCount(t, px.url, id); r.StatusCode != http.StatusNotFound {
		t.Errorf("a call on the deleted session got %d, want 404", r.StatusCode)
	}
	tr.served(t, px)
}

// A 2026-07-28 server has no sessions: traffic passes as it is, and a
// legacy session header the host sends is dropped and counted.
func TestStatelessServerPassesThrough(t *testing.T) {
	onTransports(t, statelessServerPassesThrough)
}

func statelessServerPassesThrough(t *testing.T, tr transport) {
	srv := startServer(t, demoserver.Options{Stateless: true})
	px := tr.start(t, proxy.Options{Upstream: srv.URL()})
	resp := post(t, px.url, "", initBody)
	_, _ = io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Mcp-Session-Id") != "" {
		t.Fatalf("initialize of a stateless server: %d, session %q; want 200 and none", resp.StatusCode, resp.Header.Get("Mcp-Session-Id"))
	}
	resp = callCount(t, px.url, "stale-legacy-id")
	var msg struct {
		Result json.RawMessage `json:"result"`
	}
	body, _ := io.ReadAll(resp.Body)
	_ = json.Unmarshal(sseData(body), &msg)
	if resp.StatusCode != http.StatusOK || msg.Result == nil {
		t.Fatalf("a call with a legacy header: %d %s", resp.StatusCode, body)
	}
	if n := len(px.of(proxy.EvLegacyHeaderDropped)); n != 1 {
		t.Errorf("legacy headers dropped: %d, want 1", n)
	}
	if srv.Count() != 1 {
		t.Errorf("the tool ran %d times, want 1", srv.Count())
	}
	tr.served(t, px)
}

// sseData is the data of an answer's first SSE event, or the body itself.
func sseData(body []byte) []byte {
	for line := range strings.SplitSeq(string(body), "\n") {
		if d, ok := strings.CutPrefix(line, "data: "); ok {
			return []byte(d)
		}
	}
	return body
}

// Keep-warm: a host that stays (its GET stream open) keeps its upstream
// session through idle periods longer than the timeout; a host that is
// gone (no request, no stream) has its upstream session let go with
// DELETE, and its next call opens a new one without a failed call.
func TestKeepWarmAndRelease(t *testing.T) {
	onTransports(t, keepWarmAndRelease)
}

func keepWarmAndRelease(t *testing.T, tr transport) {
	const idle = 600 * time.Millisecond
	t.Run("present host kept warm", func(t *testing.T) {
		srv := startServer(t, demoserver.Options{IdleTimeout: idle})
		px := tr.start(t, proxy.Options{Upstream: srv.URL(), IdleTimeout: idle, KeepWarm: true})
		cs := connect(t, px.url) // the Go SDK client holds a GET stream open
		count(t, cs)
		time.Sleep(4 * idle)
		count(t, cs)
		if len(srv.Ended()) != 0 || len(px.of(proxy.EvRecovered)) != 0 {
			t.Errorf("the session was lost although kept warm: ended %v", srv.Ended())
		}
		tr.served(t, px)
	})
	t.Run("timeout learned later", func(t *testing.T) {
		srv := startServer(t, demoserver.Options{IdleTimeout: idle})
		px := tr.start(t, proxy.Options{Upstream: srv.URL(), IdleTimeout: time.Hour, KeepWarm: true})
		cs := connect(t, px.url)
		count(t, cs)
		px.SetIdleTimeout(idle) // what the daemon learned from the server
		time.Sleep(4 * idle)
		count(t, cs)
		if len(srv.Ended()) != 0 {
			t.Errorf("kept warm at the configured hour, not the server's %s: ended %v", idle, srv.Ended())
		}
		tr.served(t, px)
	})
	t.Run("gone host released", func(t *testing.T) {
		srv := startServer(t, demoserver.Options{IdleTimeout: 10 * idle})
		px := tr.start(t, proxy.Options{Upstream: srv.URL(), IdleTimeout: idle, KeepWarm: true})
		id := rawSession(t, px.url)
		up := srv.SessionIDs()[0]
		waitFor(t, "the release", func() bool { return len(px.of(proxy.EvReleased)) == 1 })
		// Told before the DELETE goes: the server's record is the barrier.
		waitFor(t, "the released session's end", func() bool {
			return slices.ContainsFunc(srv.Ended(), func(e demoserver.EndedSession) bool { return e.ID == up })
		})
		for _, e := range srv.Ended() {
			if e.ID == up && e.Reason != demoserver.ReasonDeleted {
				t.Errorf("the released session ended with %q, want deleted", e.Reason)
			}
		}
		if resp := callCount(t, px.url, id); resp.StatusCode != http.StatusOK {
			t.Errorf("the call after the release: %d", resp.StatusCode)
		}
		if srv.Count() != 1 || len(px.of(proxy.EvRecovered)) != 0 {
			t.Errorf("count ran %d times, %d recoveries; want 1 and none (a release is no loss)", srv.Count(), len(px.of(proxy.EvRecovered)))
		}
		if ups := px.of(proxy.EvUpstream); len(ups) != 1 || ups[0].Upstream == up || ups[0].Upstream == "" {
			t.Errorf("upstreams named after the release: %+v; want the new one", ups)
		}
		tr.served(t, px)
	})
}
