package proxy_test

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/healer/proxy"
	"github.com/mcpwatchdog/watchdog/internal/demoserver"
)

// idKey carries a POST's JSON-RPC id to the answer it gets.
type idKey struct{}

// sessionErrorFront fronts a real Go SDK server and tells a lost session
// as some servers do: 200 with a JSON-RPC error about the session, where
// the SDK answers 404. Everything else passes as it is.
func sessionErrorFront(t *testing.T, upstream string) string {
	t.Helper()
	u, err := url.Parse(upstream)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: u.Scheme, Host: u.Host})
	rp.ModifyResponse = func(resp *http.Response) error {
		id, ok := resp.Request.Context().Value(idKey{}).(string)
		if !ok || resp.StatusCode != http.StatusNotFound {
			return nil
		}
		_ = resp.Body.Close()
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32001,"message":"Session not found"}}`, id)
		resp.StatusCode, resp.Status = http.StatusOK, "200 OK"
		resp.Header = http.Header{"Content-Type": {"application/json"}}
		resp.Body, resp.ContentLength = io.NopCloser(strings.NewReader(body)), int64(len(body))
		return nil
	}
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			var m struct {
				ID json.RawMessage `json:"id"`
			}
			_ = json.Unmarshal(body, &m)
			r = r.WithContext(context.WithValue(r.Context(), idKey{}, cmp.Or(string(m.ID), "null")))
			r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	return front.URL + u.Path
}

// A server that tells a lost session with a success carrying a session
// error is healed as one that answers 404, on both of the proxy's paths:
// a new upstream session, the call sent once more, and the host's call
// succeeds.
func TestSessionErrorIn2xxIsHealed(t *testing.T) {
	onTransports(t, func(t *testing.T, tr transport) {
		srv := startServer(t, demoserver.Options{IdleTimeout: idleTimeout})
		px := tr.start(t, proxy.Options{Upstream: sessionErrorFront(t, srv.URL())})
		cs := connect(t, px.url)
		count(t, cs)
		time.Sleep(3 * idleTimeout) // the server forgets the session
		count(t, cs)
		if got := srv.Count(); got != 2 {
			t.Errorf("the server ran the tool %d times, want 2", got)
		}
		if rec := px.of(proxy.EvRecovered); len(rec) == 0 {
			t.Error("the proxy saw no recovery")
		}
		tr.served(t, px)
	})
}
