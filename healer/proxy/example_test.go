package proxy_test

import (
	"context"
	"fmt"
	"net"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwatchdog/watchdog/healer/proxy"
	"github.com/mcpwatchdog/watchdog/internal/demoserver"
)

// A proxy in front of one server (here the Go SDK server, on loopback):
// the host is given the proxy's URL, and when the server forgets its
// session the host's next call is answered on a new one as if nothing
// happened.
func ExampleProxy_Serve() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv, err := demoserver.Start(ctx, demoserver.Options{})
	if err != nil {
		panic(err)
	}
	defer srv.Close()

	secret := proxy.NewSecret() // the daemon keeps one in its state directory
	p, err := proxy.New(proxy.Options{Server: "mem", Upstream: srv.URL(), Secret: secret,
		OnSighting: func(s proxy.Sighting) {
			if s.Kind == proxy.EvRecovered {
				fmt.Println("the proxy healed a loss on", s.Server)
			}
		}})
	if err != nil {
		panic(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0") // the daemon uses proxy.Listen(proxy_listen)
	if err != nil {
		panic(err)
	}
	go func() { _ = p.Serve(ctx, ln) }()

	host, err := demoserver.Connect(ctx, proxy.URLFor(ln.Addr().String(), secret), "any-host")
	if err != nil {
		panic(err)
	}
	defer host.Close()
	call := func() {
		res, err := host.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hello"}})
		if err != nil {
			fmt.Println("failed:", err)
			return
		}
		fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	}
	call()
	srv.ForgetAll() // the server forgets every session, as a restart does
	call()
	// Output:
	// hello
	// the proxy healed a loss on mem
	// hello
}
