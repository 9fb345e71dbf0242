package mcphttp

import (
	"encoding/json"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestWire checks what actually goes over the wire, recorded in front of a
// real SDK handler.
func TestWire(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	s := newSDKServer(t, mcp.StreamableHTTPOptions{SessionTimeout: time.Minute}, func(h http.Handler) http.Handler {
		rec.next = h
		return rec
	})
	c := newClient(t, s.http.URL, func(o *Options) {
		o.Headers = map[string]string{"Authorization": "Bearer k", "x-nmem-api-key": "k2"}
		o.ClientVersion = "1.2.3"
	})
	sid, pv := initialize(t, c) // initialize + notifications/initialized
	ctx := testCtx(t)
	if _, err := c.Ping(ctx, sid, pv); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Do(ctx, Request{Method: "server/discover", Modern: true}); err != nil {
		t.Fatal(err)
	}
	reqs := rec.all()
	if len(reqs) != 4 {
		t.Fatalf("recorded %d requests, want 4", len(reqs))
	}
	for i, r := range reqs {
		if r.Header.Get("Accept") != "application/json, text/event-stream" || r.Header.Get("Content-Type") != "application/json" {
			t.Errorf("request %d: Accept %q, Content-Type %q", i, r.Header.Get("Accept"), r.Header.Get("Content-Type"))
		}
		if r.Header.Get("Authorization") != "Bearer k" || r.Header.Get("X-Nmem-Api-Key") != "k2" {
			t.Errorf("request %d: extra headers missing: %v", i, r.Header)
		}
	}
	wantHeaders := []struct{ session, version, method string }{
		{"", "", ""}, {sid, pv, ""}, {sid, pv, ""}, {"", ModernVersion, "server/discover"},
	}
	for i, w := range wantHeaders {
		h := reqs[i].Header
		if _, ok := h[HeaderSessionID]; ok != (w.session != "") || h.Get(HeaderSessionID) != w.session {
			t.Errorf("request %d: Mcp-Session-Id %q, want %q", i, h.Get(HeaderSessionID), w.session)
		}
		if _, ok := h[HeaderProtocolVersion]; ok != (w.version != "") || h.Get(HeaderProtocolVersion) != w.version {
			t.Errorf("request %d: MCP-Protocol-Version %q, want %q", i, h.Get(HeaderProtocolVersion), w.version)
		}
		if h.Get(HeaderMethod) != w.method {
			t.Errorf("request %d: Mcp-Method %q, want %q", i, h.Get(HeaderMethod), w.method)
		}
	}
	checkIDs(t, reqs, []string{"watchdog-1", "", "watchdog-2", "watchdog-3"})
	checkModernMeta(t, reqs[3].Body)
}

func checkIDs(t *testing.T, reqs []seen, want []string) {
	t.Helper()
	for i, r := range reqs {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(r.Body, &m); err != nil {
			t.Fatalf("request %d body %q: %v", i, r.Body, err)
		}
		id, has := m["id"]
		if want[i] == "" {
			if has {
				t.Errorf("notification %d carries id %s", i, id)
			}
			continue
		}
		var s string
		if err := json.Unmarshal(id, &s); err != nil || s != want[i] {
			t.Errorf("request %d id %s, want the string %q", i, id, want[i])
		}
	}
}

func checkModernMeta(t *testing.T, body []byte) {
	t.Helper()
	var m struct {
		Params struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		} `json:"params"`
	}
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		MetaProtocolVersion:    `"2026-07-28"`,
		MetaClientInfo:         `{"name":"mcp-watchdog","version":"1.2.3"}`,
		MetaClientCapabilities: `{}`,
	}
	for k, v := range want {
		if string(m.Params.Meta[k]) != v {
			t.Errorf("_meta[%q] = %s, want %s", k, m.Params.Meta[k], v)
		}
	}
}

// TestModernMetaKeepsCaller: keys the caller put in _meta win; other params
// survive.
func TestModernMetaKeepsCaller(t *testing.T) {
	t.Parallel()
	c := newClient(t, "http://127.0.0.1:1/mcp", nil)
	body, err := c.encode(Request{Method: "server/discover", Modern: true, Params: map[string]any{
		"cursor": "x",
		"_meta":  map[string]any{MetaClientInfo: map[string]string{"name": "mcp-watchdog-probe", "version": "9"}},
	}}, "watchdog-7")
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		ID     string `json:"id"`
		Params struct {
			Cursor string                     `json:"cursor"`
			Meta   map[string]json.RawMessage `json:"_meta"`
		} `json:"params"`
	}
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	if m.ID != "watchdog-7" || m.Params.Cursor != "x" || string(m.Params.Meta[MetaClientInfo]) != `{"name":"mcp-watchdog-probe","version":"9"}` || len(m.Params.Meta) != 3 {
		t.Fatalf("encoded %s", body)
	}
	if _, err := c.encode(Request{Method: "x", Modern: true, Params: []int{1}}, "1"); err == nil {
		t.Fatal("modern request with array params should fail")
	}
}

// TestIDsUnique: concurrent requests never share an id.
func TestIDsUnique(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	s := newSDKServer(t, mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true}, func(h http.Handler) http.Handler {
		rec.next = h
		return rec
	})
	c := newClient(t, s.http.URL, nil)
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			resp, err := c.Ping(testCtx(t), "", "2025-06-18")
			if got := Judge(resp, err); got.Verdict != Alive {
				t.Errorf("ping: %v %q", got.Verdict, got.Reason)
			}
		})
	}
	wg.Wait()
	ids := map[string]bool{}
	for _, r := range rec.all() {
		var m struct{ ID string }
		if err := json.Unmarshal(r.Body, &m); err != nil || ids[m.ID] {
			t.Fatalf("id %q repeated or unreadable (%v)", m.ID, err)
		}
		ids[m.ID] = true
	}
	if len(ids) != 20 {
		t.Fatalf("%d distinct ids, want 20", len(ids))
	}
}
