package proxyproc_test

import (
	"context"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/healer/proxy"
	"github.com/mcpwatchdog/watchdog/internal/config"
	"github.com/mcpwatchdog/watchdog/internal/proxyproc"
	"github.com/mcpwatchdog/watchdog/internal/sockact"
)

// A proxy process its daemon started, whose config names no proxy (every
// host released), ends: nobody else would ever stop it. One a supervisor
// runs waits for a config that names one.
func TestOwnedProxyWithNothingToServeEnds(t *testing.T) {
	for _, tc := range []struct {
		name  string
		owned bool
	}{{"owned", true}, {"supervised", false}} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			defer cancel()
			err := proxyproc.Run(ctx, config.Config{}, t.TempDir(), proxyproc.Options{Owned: tc.owned})
			ended := ctx.Err() == nil
			if err != nil || ended != tc.owned {
				t.Fatalf("Run = %v, ended by itself %v; want it to end by itself: %v", err, ended, tc.owned)
			}
		})
	}
}

type discardReports struct{}

func (discardReports) Sighting(context.Context, proxy.Sighting) {}
func (discardReports) Warning(context.Context, string, string)  {}

// What the state directory keeps of a server's last word (the last-known
// server a host that starts while it is down is attached from) is
// forgotten once the server is no longer proxied, and kept while it is.
func TestKnownServerForgottenWithItsServer(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"known-mem.json", "known-gone.json", "known-direct.json"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("{}"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	listen := ln.Addr().String()
	ln.Close()
	cfg := config.Config{Servers: []config.Server{
		{Name: "mem", URL: "http://127.0.0.1:1/mcp", ProxyListen: listen},
		{Name: "direct", URL: "http://127.0.0.1:2/mcp"},
	}}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	ps := &proxyproc.Serving{Config: cfg, StateDir: dir, Log: slog.New(slog.DiscardHandler), Sockets: proxyproc.NewSockets(sockact.Set{}),
		Proxies: proxyproc.NewSet("secret"), Out: discardReports{}}
	ps.StartAll(ctx, &wg)
	cancel()
	wg.Wait()
	ps.Sockets.Close()
	for name, kept := range map[string]bool{"known-mem.json": true, "known-gone.json": false, "known-direct.json": false} {
		_, err := os.Stat(filepath.Join(dir, name))
		if (err == nil) != kept {
			t.Errorf("%s: %v; want kept %v", name, err, kept)
		}
	}
}
