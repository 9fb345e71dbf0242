package main

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"time"

	"github.com/mcpwatchdog/watchdog/healer/proxy"
	"github.com/mcpwatchdog/watchdog/internal/testbed/bench/loadgen"
)

// proxyGoals are the goals for the proxy under load.
const (
	minRatio       = 0.8                    // through the proxy / straight, calls/s
	maxAddedP50C1  = 100 * time.Microsecond // at one session
	maxAddedP99C8  = time.Millisecond       // at eight
	maxCPUPerCall  = 50 * time.Microsecond  // the watchdog's, per proxied call
	maxHeldSession = 8 << 10                // bytes of RSS per held idle session
	maxHeldRSS     = 100 << 20              // 10,000 held sessions
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

// loadFigures is one server and concurrency: each path's calls, and what
// the proxy windows cost the watchdog.
type loadFigures struct {
	straight, through loadgen.Result
	cpu               time.Duration // the watchdog's, over the proxy windows
	upstreamConns     int64         // accepted by the server over them
}

// proxyLoad prints one row per server and concurrency: C sessions calling
// echo in a loop, straight and through the proxy in alternating windows.
func (b *bench) proxyLoad(ctx context.Context, servers []string, concs []int, window time.Duration, rounds int) error {
	for _, name := range servers {
		p, err := b.startProxied(ctx, name)
		if err != nil {
			return err
		}
		rec := b.record(ctx, p.d.cmd.Process.Pid)
		for _, c := range concs {
			f, err := b.loadOnce(ctx, p, c, window, rounds)
			if err != nil {
				rec.stop()
				p.stop()
				return fmt.Errorf("%s, %d sessions: %w", name, c, err)
			}
			printLoadRow(name, c, f)
		}
		rec.stop()
		p.stop()
	}
	return nil
}
