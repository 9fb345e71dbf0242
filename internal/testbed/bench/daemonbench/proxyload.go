package main

import (
	"context"
	"fmt"
	"net"
	"path/filepath"

	"github.com/mcpwatchdog/watchdog/healer/proxy"
)

// The goals for held sessions (the proxy under load is measured against
// nginx and HAProxy: compare.go).
const (
	maxHeldSession = 8 << 10   // bytes of RSS per held idle session
	maxHeldRSS     = 100 << 20 // 10,000 held sessions
)

// proxied is a daemon serving a proxy in front of one server.
type proxied struct {
	d        *daemon
	url      string // the proxy's, for hosts
	upstream *upstream
}

// startProxied starts srv and a daemon whose proxy forwards to it.
func (b *bench) startProxied(ctx context.Context, name string) (*proxied, error) {
	srv, err := startUpstream(ctx, name)
	if err != nil {
		return nil, err
	}
	d, url, _, err := b.proxyFor(ctx, srv.URL())
	if err != nil {
		_ = srv.Close()
		return nil, err
	}
	return &proxied{d: d, url: url, upstream: srv}, nil
}

// proxyFor starts a daemon whose proxy forwards to the server at
// upstream, and returns it with the proxy's URL and its metrics'.
func (b *bench) proxyFor(ctx context.Context, upstream string) (d *daemon, proxyURL, metricsURL string, err error) {
	listen, err := freePort()
	if err != nil {
		return nil, "", "", err
	}
	metrics, err := freePort()
	if err != nil {
		return nil, "", "", err
	}
	secret, err := proxy.LoadSecret(filepath.Join(b.dir, "state"))
	if err != nil {
		return nil, "", "", err
	}
	cfg := fmt.Sprintf("metrics_listen = %q\n", metrics) + hostTable +
		fmt.Sprintf("\n[[server]]\nname = \"load\"\nurl = %q\nidle_timeout = \"1h\"\nproxy_listen = %q\n", upstream, listen)
	if d, err = b.start(ctx, cfg); err != nil {
		return nil, "", "", err
	}
	return d, proxy.URLFor(listen, secret), "http://" + metrics + "/metrics", nil
}

func (p *proxied) stop() {
	p.d.stop()
	_ = p.upstream.Close()
}

func freePort() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}
