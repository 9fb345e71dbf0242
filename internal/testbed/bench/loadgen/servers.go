package loadgen

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwatchdog/watchdog/internal/demoserver"
)

// Server is a running MCP server on loopback.
type Server struct {
	Name string // "go-sdk" or "mcp-go"
	url  string
	ln   *countingListener
	stop func() error
}

// Accepted is the number of TCP connections the server has accepted.
func (s *Server) Accepted() int64 { return s.ln.accepted.Load() }

// Close stops the server.
func (s *Server) Close() error { return s.stop() }

// countingListener counts accepted connections.
type countingListener struct {
	net.Listener
	accepted atomic.Int64
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.accepted.Add(1)
	}
	return c, err
}

func listen() (*countingListener, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("loadgen: listen: %w", err)
	}
	return &countingListener{Listener: ln}, nil
}

// StartGoSDK starts the Go SDK server (demoserver: sessions never expire).
func StartGoSDK(ctx context.Context) (*Server, error) {
	ln, err := listen()
	if err != nil {
		return nil, err
	}
	srv, err := demoserver.Start(ctx, demoserver.Options{Listener: ln})
	if err != nil {
		_ = ln.Close()
		return nil, err
	}
	return &Server{Name: "go-sdk", url: srv.URL(), ln: ln, stop: srv.Close}, nil
}

// StartFast starts mark3labs/mcp-go's Streamable HTTP server with an echo
// tool: a server that spends little per call, so what the proxy adds shows.
func StartFast(ctx context.Context) (*Server, error) {
	ln, err := listen()
	if err != nil {
		return nil, err
	}
	m := server.NewMCPServer("fast-echo", "1.0.0", server.WithToolCapabilities(false))
	m.AddTool(mcp.NewTool("echo", mcp.WithDescription("Returns its text argument."), mcp.WithString("text")),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(req.GetString("text", "")), nil
		})
	hs := &http.Server{Handler: server.NewStreamableHTTPServer(m), BaseContext: func(net.Listener) context.Context { return ctx }}
	var wg sync.WaitGroup
	wg.Go(func() { _ = hs.Serve(ln) })
	stop := func() error {
		err := hs.Close()
		wg.Wait()
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return err
	}
	return &Server{Name: "mcp-go", url: "http://" + ln.Addr().String() + "/mcp", ln: ln, stop: stop}, nil
}

// Start starts the server of that name ("go-sdk", "mcp-go").
func Start(ctx context.Context, name string) (*Server, error) {
	switch name {
	case "go-sdk":
		return StartGoSDK(ctx)
	case "mcp-go":
		return StartFast(ctx)
	}
	return nil, fmt.Errorf("loadgen: no server %q (go-sdk, mcp-go)", name)
}

// URL is the server's MCP endpoint.
func (s *Server) URL() string { return s.url }
