package proxy_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwatchdog/watchdog/healer/proxy"
	"github.com/mcpwatchdog/watchdog/internal/testbed/pypeer"
	"github.com/mcpwatchdog/watchdog/internal/testbed/tsserver"
)

// lateServer is a real Go SDK server (StreamableHTTPHandler) at an address
// fixed before it starts: a host can be pointed at it while it is down
// (its connections refused), and it comes up later. It counts the
// messages it was sent, by method.
type lateServer struct {
	addr string
	mu   sync.Mutex
	seen map[string]int
	srv  *http.Server
}

// newLateServer reserves a loopback address; nothing listens there yet.
func newLateServer(t *testing.T) *lateServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	ls := &lateServer{addr: addr, seen: map[string]int{}}
	t.Cleanup(ls.down)
	return ls
}

func (ls *lateServer) url() string { return "http://" + ls.addr + "/mcp" }

// up starts the server with tools (each answers "ran <name>").
func (ls *lateServer) up(t *testing.T, tools ...string) {
	t.Helper()
	if err := ls.start(tools...); err != nil {
		t.Fatal(err)
	}
}

// upWhen starts the server with tools once px saw a host wait for it.
func (ls *lateServer) upWhen(t *testing.T, px *running, tools ...string) {
	go func() {
		for len(px.of(proxy.EvAwaiting)) == 0 {
			time.Sleep(10 * time.Millisecond)
		}
		if err := ls.start(tools...); err != nil {
			t.Error(err)
		}
	}()
}

func (ls *lateServer) start(tools ...string) error {
	server := mcp.NewServer(&mcp.Implementation{Name: "late", Version: "1.0.0"}, nil)
	for _, name := range tools {
		mcp.AddTool(server, &mcp.Tool{Name: name, Description: "Says it ran."},
			func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ran " + name}}}, nil, nil
			})
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)
	counted := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			var m struct {
				Method string `json:"method"`
			}
			_ = json.Unmarshal(body, &m)
			ls.mu.Lock()
			ls.seen[m.Method]++
			ls.mu.Unlock()
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		h.ServeHTTP(w, r)
	})
	ln, err := net.Listen("tcp", ls.addr)
	if err != nil {
		return fmt.Errorf("the server's address was taken meanwhile: %w", err)
	}
	srv := &http.Server{Handler: counted}
	ls.mu.Lock()
	ls.srv = srv
	ls.mu.Unlock()
	go func() { _ = srv.Serve(ln) }()
	return nil
}

// down stops it: its connections are refused again.
func (ls *lateServer) down() {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if ls.srv != nil {
		_ = ls.srv.Close()
		ls.srv = nil
	}
}

// sent is how many messages of method the server was sent.
func (ls *lateServer) sent(method string) int {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	return ls.seen[method]
}

// known makes a last-known server file: a host's session through a proxy
// while the server (tools) was up, its tools listed; then the server and
// that proxy go. The file is what a daemon that ran before keeps.
func knownFile(t *testing.T, tr transport, ls *lateServer, tools ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "known-mem.json")
	ls.up(t, tools...)
	px := tr.start(t, proxy.Options{Upstream: ls.url(), KnownFile: path})
	cs := connect(t, px.url)
	if _, err := cs.ListTools(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	_ = cs.Close()
	px.stop()
	ls.down()
	ls.mu.Lock()
	ls.seen = map[string]int{}
	ls.mu.Unlock()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatalf("no last-known server file: %v", err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("the last-known server file has mode %v, want 0600", fi.Mode().Perm())
	}
	return path
}

func toolNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	var out []string
	for _, tool := range res.Tools {
		out = append(out, tool.Name)
	}
	slices.Sort(out)
	return out
}

// A host (the Go SDK client) that starts while its server is down is
// answered from the last-known server: its initialize and its tools. When
// the server comes up with other tools, the host is told on its GET stream
// (tools/list_changed), its next list is the server's, and its call runs
// once; the server got the host's initialize and notifications/initialized
// once each.
func TestHostAttachesWhileServerDown(t *testing.T) {
	onTransports(t, func(t *testing.T, tr transport) {
		ls := newLateServer(t)
		path := knownFile(t, tr, ls, "count")
		px := tr.start(t, proxy.Options{Upstream: ls.url(), KnownFile: path})
		changed := make(chan struct{}, 4)
		client := mcp.NewClient(&mcp.Implementation{Name: "late-host", Version: "1"}, &mcp.ClientOptions{
			ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} }})
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: px.url, HTTPClient: &http.Client{}}, nil)
		if err != nil {
			t.Fatalf("a host could not start while its server was down: %v", err)
		}
		t.Cleanup(func() { _ = cs.Close() })
		if got := cs.InitializeResult().ServerInfo.Name; got != "late" {
			t.Errorf("attached to server %q, want the last-known one (late)", got)
		}
		if got := toolNames(t, cs); !slices.Equal(got, []string{"count"}) {
			t.Errorf("tools while the server is down: %v, want the last-known [count]", got)
		}
		// The Go SDK client asks server/discover first (answered from the
		// kept one too), then initializes.
		att := slices.DeleteFunc(px.of(proxy.EvAttached), func(ev proxy.Sighting) bool { return ev.HostSession == "" })
		if len(att) != 1 || att[0].Known.IsZero() || !strings.Contains(att[0].Detail, "mem was down") {
			t.Fatalf("attached sightings of a session: %+v; want one, with the time of the knowledge", att)
		}

		ls.up(t, "count", "extra")
		select {
		case <-changed:
		case <-time.After(10 * time.Second):
			t.Fatal("the host was not told its tools changed")
		}
		if got := toolNames(t, cs); !slices.Equal(got, []string{"count", "extra"}) {
			t.Errorf("tools once the server is up: %v, want the server's [count extra]", got)
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "count"})
		if err != nil || res.IsError {
			t.Fatalf("a call once the server is up: %v %+v", err, res)
		}
		for method, want := range map[string]int{"initialize": 1, "notifications/initialized": 1, "tools/call": 1} {
			if got := ls.sent(method); got != want {
				t.Errorf("the server was sent %s %d times, want %d", method, got, want)
			}
		}
		waitFor(t, "the server-up sighting", func() bool { return len(px.of(proxy.EvAttachedUp)) == 1 })
		if up := px.of(proxy.EvAttachedUp); !strings.Contains(up[0].Detail, "tools/list_changed") {
			t.Errorf("server-up sighting %q does not say the tools changed", up[0].Detail)
		}
	})
}

// A tool call before the server is up waits the bounded time, then fails
// with an error for its id that names the server; nothing reached it.
func TestCallBeforeServerUpFailsNamingIt(t *testing.T) {
	onTransports(t, func(t *testing.T, tr transport) {
		ls := newLateServer(t)
		path := knownFile(t, tr, ls, "count")
		const wait = 300 * time.Millisecond
		px := tr.start(t, proxy.Options{Upstream: ls.url(), KnownFile: path, CallWait: wait})
		cs := connect(t, px.url)
		began := time.Now()
		_, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "count"})
		if err == nil || !strings.Contains(err.Error(), "mem is not up yet") {
			t.Fatalf("a call while the server is down: %v; want an error naming mem, not up yet", err)
		}
		if took := time.Since(began); took < wait {
			t.Errorf("the call failed after %v, before its wait of %v", took, wait)
		}
		if n := px.of(proxy.EvNotUp); len(n) != 1 {
			t.Errorf("not-up sightings: %+v, want one", n)
		}
		// The host's session holds: its next call runs once the server is up.
		ls.up(t, "count")
		count(t, cs)
		if got := ls.sent("tools/call"); got != 1 {
			t.Errorf("the server ran %d calls, want 1 (the one after it came up)", got)
		}
	})
}

// With nothing known of the server, a host's initialize waits for it: one
// that comes up within the wait gets the host connected; one that does
// not gets the host an error that names it.
func TestInitializeWaitsForUnknownServer(t *testing.T) {
	onTransports(t, func(t *testing.T, tr transport) {
		ls := newLateServer(t)
		px := tr.start(t, proxy.Options{Upstream: ls.url(), KnownFile: filepath.Join(t.TempDir(), "known.json")})
		ls.upWhen(t, px, "count")
		cs := connect(t, px.url)
		count(t, cs)
		if got := ls.sent("initialize"); got != 1 {
			t.Errorf("the server was sent initialize %d times, want 1", got)
		}

		quick := tr.start(t, proxy.Options{Server: "nowhere", Upstream: newLateServer(t).url(), InitWait: 200 * time.Millisecond})
		client := mcp.NewClient(&mcp.Implementation{Name: "late-host", Version: "1"}, nil)
		_, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: quick.url, HTTPClient: &http.Client{}}, nil)
		if err == nil || !strings.Contains(err.Error(), "nowhere is not up yet") {
			t.Fatalf("initialize with nothing known and no server: %v; want an error naming the server", err)
		}
	})
}

// The unpatched TypeScript SDK client and the Python SDK client connect
// through the proxy while their server is down, from the last-known
// server, and their calls run once it is up; with nothing known, they
// connect once the server is up within the wait.
func TestRealClientsAttachWhileServerDown(t *testing.T) {
	clients := []struct {
		name  string
		start func(t *testing.T, url string) *tsserver.Client
	}{
		{"ts-sdk client", func(t *testing.T, url string) *tsserver.Client { return tsserver.StartClient(t, url) }},
		{"python-sdk 2.x client", func(t *testing.T, url string) *tsserver.Client { return pypeer.StartClient(t, pypeer.SDK2, url) }},
	}
	onTransports(t, func(t *testing.T, tr transport) {
		for _, cl := range clients {
			t.Run(cl.name+"/known", func(t *testing.T) {
				ls := newLateServer(t)
				px := tr.start(t, proxy.Options{Upstream: ls.url(), KnownFile: knownFile(t, tr, ls, "count")})
				c := cl.start(t, px.url)
				ls.up(t, "count")
				if line := c.Call(t, "count"); !strings.HasPrefix(line, "OK ") {
					t.Fatalf("a call once the server is up: %s", line)
				}
				for method, want := range map[string]int{"initialize": 1, "notifications/initialized": 1, "tools/call": 1} {
					if got := ls.sent(method); got != want {
						t.Errorf("the server was sent %s %d times, want %d", method, got, want)
					}
				}
			})
			t.Run(cl.name+"/unknown", func(t *testing.T) {
				ls := newLateServer(t)
				px := tr.start(t, proxy.Options{Upstream: ls.url()})
				ls.upWhen(t, px, "count")
				c := cl.start(t, px.url)
				if line := c.Call(t, "count"); !strings.HasPrefix(line, "OK ") {
					t.Fatalf("a call: %s", line)
				}
				if got := ls.sent("initialize"); got != 1 {
					t.Errorf("the server was sent initialize %d times, want 1", got)
				}
			})
		}
	})
}

// The last-known server is kept in its file across proxies (loaded at
// New), and a result past the bound is not kept, nor the one it replaced.
func TestKnownServerKeptAndBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "known-mem.json")
	opts := proxy.Options{Server: "mem", Upstream: "http://127.0.0.1:1/mcp", Secret: proxy.NewSecret(), KnownFile: path}
	first, err := proxy.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	first.KnowAnswer("tools/list", json.RawMessage(`{"tools":[{"name":"count","inputSchema":{"type":"object"}}]}`))
	first.KnowAnswer("tools/call", json.RawMessage(`{"content":[]}`)) // not a kept answer
	second, err := proxy.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := second.Known("tools/list"); !ok {
		t.Fatal("a proxy started on the file does not know the tools the last one kept")
	}
	if _, ok := second.Known("tools/call"); ok {
		t.Error("a tool call's answer was kept")
	}
	big := json.RawMessage(`{"tools":[],"pad":"` + strings.Repeat("x", proxy.MaxKnown) + `"}`)
	second.KnowAnswer("tools/list", big)
	if _, ok := second.Known("tools/list"); ok {
		t.Error("a list past the bound was kept (or the stale one it replaced)")
	}
	if fi, err := os.Stat(path); err != nil || fi.Size() > proxy.MaxKnown {
		t.Errorf("the file: %v, %v; want at most %d bytes", fi, err, proxy.MaxKnown)
	}
}

// A list answered with a small JSON body (read already to judge it, on the
// fast path) reaches the host whole and is kept.
func TestJSONListAnswerKeptWhole(t *testing.T) {
	onTransports(t, func(t *testing.T, tr transport) {
		server := mcp.NewServer(&mcp.Implementation{Name: "json", Version: "1.0.0"}, nil)
		mcp.AddTool(server, &mcp.Tool{Name: "count", Description: "Says it ran."},
			func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
				return &mcp.CallToolResult{}, nil, nil
			})
		h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, &mcp.StreamableHTTPOptions{JSONResponse: true})
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		srv := &http.Server{Handler: h}
		go func() { _ = srv.Serve(ln) }()
		t.Cleanup(func() { _ = srv.Close() })
		px := tr.start(t, proxy.Options{Upstream: "http://" + ln.Addr().String() + "/mcp"})
		cs := connect(t, px.url)
		for range 5 {
			if got := toolNames(t, cs); !slices.Equal(got, []string{"count"}) {
				t.Fatalf("tools through the proxy: %v, want [count]", got)
			}
		}
		if _, ok := px.Known("tools/list"); !ok {
			t.Error("the tools the server listed were not kept")
		}
		tr.served(t, px)
	})
}
