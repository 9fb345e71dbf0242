package probe

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/mcphttp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sdkServer is a real Go SDK MCP server on loopback, optionally behind a
// wrapper that gives it another server's manners.
type sdkServer struct {
	srv  *mcp.Server
	http *httptest.Server
}

func newSDKServer(t *testing.T, opts mcp.StreamableHTTPOptions, wrap func(*mcp.Server, http.Handler) http.Handler) *sdkServer {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "probe-test-server", Version: "1.2.3"}, nil)
	opts.Logger = slog.New(slog.DiscardHandler)
	var h http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &opts)
	if wrap != nil {
		h = wrap(srv, h)
	}
	hs := httptest.NewServer(h)
	t.Cleanup(hs.Close)
	return &sdkServer{srv: srv, http: hs}
}

func sessionCount(srv *mcp.Server) int {
	n := 0
	for range srv.Sessions() {
		n++
	}
	return n
}

// knows reports whether srv holds a live session with this id.
func knows(srv *mcp.Server, id string) bool {
	for ss := range srv.Sessions() {
		if ss.ID() == id {
			return true
		}
	}
	return false
}

// waitSessions polls until srv holds want sessions: closing is asynchronous
// on the server side, and the machine may be slow.
func waitSessions(t *testing.T, srv *mcp.Server, want int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for sessionCount(srv) != want {
		if time.Now().After(deadline) {
			t.Fatalf("server holds %d sessions, want %d", sessionCount(srv), want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func newClient(t *testing.T, url string) *mcphttp.Client {
	t.Helper()
	c, err := mcphttp.New(mcphttp.Options{URL: url, Timeout: 10 * time.Second, ClientVersion: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func testCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 40*time.Second)
	t.Cleanup(cancel)
	return ctx
}
