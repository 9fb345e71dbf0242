package repro

import (
	"context"
	"fmt"

	"github.com/mcpwatchdog/watchdog/healer/proxy"
)

// startProxy serves the watchdog's proxy for upstream on a free loopback
// port; stop ends it.
func startProxy(ctx context.Context, upstream string, o Options) (stop func(), url string, err error) {
	secret := proxy.NewSecret()
	p, err := proxy.New(proxy.Options{Server: o.ServerName, Upstream: upstream, Secret: secret, Logger: o.Logger})
	if err != nil {
		return nil, "", fmt.Errorf("repro: proxy: %w", err)
	}
	ln, err := proxy.Listen("127.0.0.1:0")
	if err != nil {
		return nil, "", fmt.Errorf("repro: proxy: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = p.Serve(ctx, ln)
	}()
	return func() { cancel(); <-done }, proxy.URLFor(ln.Addr().String(), secret), nil
}
