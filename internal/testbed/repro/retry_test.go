package repro

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/testbed/repo"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// countingServer is the real Go SDK StreamableHTTPHandler on loopback,
// wrapped to count what the client sends and to fail in the ways a retry
// must never follow: "flaky" runs, then its answer is replaced by a 500;
// "slow" outlives the client's call timeout. After loseAll, every
// tools/call POST that carries a session id is answered 404 "session not
// found", on the fresh session too: session loss twice in a row. "held"
// signals held when it starts and runs until the test releases it.
type countingServer struct {
	srv       *httptest.Server
	lost      atomic.Bool
	mu        sync.Mutex
	runs      map[string]int // tool executions by name
	toolPOSTs map[string]int // tools/call POSTs by tool name
	inits     int            // initialize POSTs
	held      chan struct{}  // a token each time "held" starts running
	release   chan struct{}  // closed: "held" returns
}

func startCountingServer(t *testing.T) *countingServer {
	t.Helper()
	c := &countingServer{runs: map[string]int{}, toolPOSTs: map[string]int{}, held: make(chan struct{}, 1), release: make(chan struct{})}
	s := mcp.NewServer(&mcp.Implementation{Name: "retry-test", Version: "1.0.0"}, nil)
	for _, name := range []string{"echo", "flaky"} {
		mcp.AddTool(s, &mcp.Tool{Name: name}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			c.ran(name)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: name + " ran"}}}, nil, nil
		})
	}
	mcp.AddTool(s, &mcp.Tool{Name: "slow"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		c.ran("slow")
		select { // past the client's call timeout; its cancellation ends it
		case <-ctx.Done():
		case <-time.After(30 * time.Second):
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "slow ran"}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "held"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		c.ran("held")
		c.held <- struct{}{}
		select {
		case <-ctx.Done():
		case <-c.release:
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "held ran"}}}, nil, nil
	})
	inner := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	c.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { c.serve(w, r, inner) }))
	t.Cleanup(c.srv.Close)
	return c
}

func (c *countingServer) url() string { return c.srv.URL + "/mcp" }

func (c *countingServer) ran(tool string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.runs[tool]++
}

func (c *countingServer) counts(tool string) (runs, posts, inits int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.runs[tool], c.toolPOSTs[tool], c.inits
}

func (c *countingServer) serve(w http.ResponseWriter, r *http.Request, inner http.Handler) {
	if r.Method != http.MethodPost {
		inner.ServeHTTP(w, r)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	var msg struct {
		Method string `json:"method"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	_ = json.Unmarshal(body, &msg) // a batch or a response is passed on as it is
	switch msg.Method {
	case "initialize":
		c.mu.Lock()
		c.inits++
		c.mu.Unlock()
	case "tools/call":
		c.mu.Lock()
		c.toolPOSTs[msg.Params.Name]++
		c.mu.Unlock()
		if c.lost.Load() && r.Header.Get("Mcp-Session-Id") != "" {
			http.Error(w, "session not found", http.StatusNotFound)
			return
		}
		if msg.Params.Name == "flaky" {
			inner.ServeHTTP(httptest.NewRecorder(), r) // the tool runs; its answer is lost
			http.Error(w, "internal server error", http.StatusInternalServerError)
			return
		}
	}
	inner.ServeHTTP(w, r)
}

// startRetryHost runs the host with the patched client against c; each
// tune changes the options first.
func startRetryHost(t *testing.T, c *countingServer, client ClientKind, tune ...func(*Options)) (*host, Options) {
	t.Helper()
	o := testOptions(t)
	o.Client, o.Patched, o.ToolCallTimeout = client, true, 2*time.Second
	for _, f := range tune {
		f(&o)
	}
	o, err := o.withDefaults()
	mustDo(t, err)
	o.Root, err = repo.Root()
	mustDo(t, err)
	p := newPaths(o.Root)
	node, err := p.check(o)
	mustDo(t, err)
	module, err := prepareModule(o, p, node, filepath.Join(t.TempDir(), "client"), o.Home)
	mustDo(t, err)
	h, err := startHost(node, p, module, o, []hostServer{{o.ServerName, c.url()}}, o.Home)
	mustDo(t, err)
	t.Cleanup(h.stop)
	return h, o
}

func mustDo(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestNeverRetried: a tool whose server answers 500 after running it, and
// one that outlives the client's call timeout, each run exactly once: the
// retry follows session-lost answers only.
func TestNeverRetried(t *testing.T) {
	t.Parallel()
	for _, cl := range []ClientKind{Real} { // the stand-in's supervisor is the same code
		t.Run(string(cl), func(t *testing.T) {
			t.Parallel()
			c := startCountingServer(t)
			h, o := startRetryHost(t, c, cl)
			for _, tc := range []struct{ tool, want string }{
				{"flaky", "HTTP 500"},
				{"slow", "timed out"},
			} {
				res, err := h.call(o.toolNamed(tc.tool), "{}")
				mustDo(t, err)
				if res.OK || !strings.Contains(res.Text, tc.want) {
					t.Fatalf("%s: ok %v, %q; want an error mentioning %q", tc.tool, res.OK, res.Text, tc.want)
				}
				if runs, posts, _ := c.counts(tc.tool); runs != 1 || posts != 1 {
					t.Fatalf("%s ran %d times in %d tools/call POSTs, want once", tc.tool, runs, posts)
				}
			}
			// The generation was not taken down: the next call works at once.
			if res, err := h.call(o.tool(), "{}"); err != nil || !res.OK {
				t.Fatalf("echo after the failures: %+v, %v", res, err)
			}
			if _, _, inits := c.counts("echo"); inits != 1 {
				t.Errorf("%d sessions opened, want 1: a 500 or a timeout recycled the session", inits)
			}
		})
	}
}

// TestSessionLostTwice: the server answers session-lost on the fresh
// session too; the caller gets that error after exactly one retry, and no
// more tools/call follows while the client reconnects again.
func TestSessionLostTwice(t *testing.T) {
	t.Parallel()
	for _, cl := range []ClientKind{Real} { // the stand-in's supervisor is the same code
		t.Run(string(cl), func(t *testing.T) {
			t.Parallel()
			c := startCountingServer(t)
			h, o := startRetryHost(t, c, cl)
			if res, err := h.call(o.tool(), "{}"); err != nil || !res.OK {
				t.Fatalf("echo before the loss: %+v, %v", res, err)
			}
			c.lost.Store(true)
			res, err := h.call(o.tool(), "{}")
			mustDo(t, err)
			if res.OK || res.Status != http.StatusNotFound {
				t.Fatalf("call after the loss: %+v; want the 404 of the retry", res)
			}
			runs, posts, inits := c.counts("echo")
			if runs != 1 || posts != 3 || inits != 2 {
				t.Fatalf("echo: %d runs, %d tools/call POSTs, %d sessions; want 1 run, 1+2 POSTs (the call and its one retry), 2 sessions",
					runs, posts, inits)
			}
			// The retry's 404 takes the second session down too; once the
			// client has opened a third, still no tools/call was sent again.
			deadline := time.Now().Add(time.Minute)
			for _, _, inits = c.counts("echo"); inits < 3; _, _, inits = c.counts("echo") {
				if time.Now().After(deadline) {
					t.Fatalf("the client never reconnected after the second loss\n%s", h.stderr())
				}
				time.Sleep(10 * time.Millisecond)
			}
			if _, posts, _ = c.counts("echo"); posts != 3 {
				t.Fatalf("%d tools/call POSTs after the client reconnected, want still 3: a retry loop", posts)
			}
		})
	}
}

// recoverNow writes the watchdog's trigger for h's server and waits for the
// client to say it took the session down (it logs that first, then takes
// the generation down in the same turn).
func recoverNow(t *testing.T, h *host, o Options) {
	t.Helper()
	trigger(t, o.Home, o.ServerName)
	deadline := time.Now().Add(callWithin)
	for !strings.Contains(h.stderr(), "mcp-watchdog asked for a new session") {
		if time.Now().After(deadline) {
			t.Fatalf("the client never acted on the trigger\n%s", h.stderr())
		}
		time.Sleep(2 * time.Millisecond) // a poll: the call below must come within the backoff
	}
}

// TestCallDuringATriggeredRecovery: a call made right after the watchdog's
// trigger took the session down, while the client waits out its reconnect
// backoff, comes on the generation its tool was registered with. It is not
// sent on that closed generation (patch v3 did: "Not connected", the server
// never saw it): it waits for the new session and runs there once.
func TestCallDuringATriggeredRecovery(t *testing.T) {
	t.Parallel()
	c := startCountingServer(t)
	// The client's own first reconnect delay (500 ms): the call comes well within it.
	h, o := startRetryHost(t, c, Real, func(o *Options) { o.ReconnectInitial = 0 })
	if res, err := h.call(o.tool(), "{}"); err != nil || !res.OK {
		t.Fatalf("echo before the trigger: %+v, %v", res, err)
	}
	recoverNow(t, h, o)
	if res, err := h.call(o.tool(), "{}"); err != nil || !res.OK {
		t.Fatalf("echo during the recovery: %+v, %v\n%s", res, err, h.stderr())
	}
	if !strings.Contains(h.stderr(), "sending it on the new session") {
		t.Errorf("the client did not say it sent the call on the new session:\n%s", h.stderr())
	}
	if runs, posts, inits := c.counts("echo"); runs != 2 || posts != 2 || inits != 2 {
		t.Errorf("echo: %d runs in %d tools/call POSTs, %d sessions; want 2 runs in 2 POSTs (before and during), 2 sessions", runs, posts, inits)
	}
}

// TestCallInFlightAtATriggerIsNotResent: the trigger takes the session down
// while a call is in flight on it. That call was sent and the server may
// have run it, so whatever its answer, it is never sent again: not on the
// new session, nor after it.
func TestCallInFlightAtATriggerIsNotResent(t *testing.T) {
	t.Parallel()
	c := startCountingServer(t)
	h, o := startRetryHost(t, c, Real, func(o *Options) { o.ToolCallTimeout = callWithin })
	type answer struct {
		res callResult
		err error
	}
	held := make(chan answer, 1)
	go func() {
		res, err := h.call(o.toolNamed("held"), "{}")
		held <- answer{res, err}
	}()
	select {
	case <-c.held:
	case <-time.After(callWithin):
		t.Fatalf("the held call never reached the server\n%s", h.stderr())
	}
	recoverNow(t, h, o)
	close(c.release)
	got := <-held
	mustDo(t, got.err)
	t.Logf("the call in flight got %+v", got.res)
	if runs, posts, _ := c.counts("held"); runs != 1 || posts != 1 {
		t.Fatalf("held ran %d times in %d tools/call POSTs, want once", runs, posts)
	}
	// The next call, still on the taken-down generation's tool, waits for
	// the new session; the held call is never sent there.
	if res, err := h.call(o.tool(), "{}"); err != nil || !res.OK {
		t.Fatalf("echo after the recovery: %+v, %v\n%s", res, err, h.stderr())
	}
	if runs, posts, inits := c.counts("held"); runs != 1 || posts != 1 || inits != 2 {
		t.Errorf("held: %d runs in %d tools/call POSTs, %d sessions; want 1 in 1 POST, 2 sessions", runs, posts, inits)
	}
}
