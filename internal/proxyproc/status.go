package proxyproc

import (
	"context"
	"fmt"
	"net"
	"time"

	"github.com/mcpwatchdog/watchdog/healer/proxy"
	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/proxywire"
)

// Status asks the proxy process of stateDir for its first
// word, the proxies' state, as a status document.
func Status(ctx context.Context, stateDir string) (*health.Status, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	conn, err := (&net.Dialer{}).DialContext(ctx, "unix", SocketPath(stateDir))
	if err != nil {
		return nil, fmt.Errorf("the proxy process: %w", err)
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { _ = conn.Close() })
	defer stop()
	r := proxywire.NewReader(conn)
	var m proxywire.Message
	for m.Proxies == nil { // its first word on them; other lines may come before
		if m, err = r.Read(); err != nil {
			return nil, fmt.Errorf("the proxy process said no state: %w", err)
		}
	}
	secret, err := proxy.LoadSecret(stateDir)
	if err != nil {
		return nil, err
	}
	st := &health.Status{}
	for _, p := range m.Proxies.Proxies {
		ss := health.ServerStatus{Name: p.Server, ProxyListen: p.Listen, ProxyServed: p.Served, ProxyProblem: p.Problem, ProxySocket: p.Socket}
		if p.Served {
			ss.ProxyURL = proxy.URLFor(p.Listen, secret)
		}
		st.Servers = append(st.Servers, ss)
	}
	return st, nil
}
