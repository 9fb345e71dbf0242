package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/mcpwatchdog/watchdog/healer/proxy"
	"github.com/mcpwatchdog/watchdog/internal/control"
	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/proxywire"
)

// ServedStatus is the running daemon's status document, or, when no
// daemon answers, the proxy process's word on the proxies it serves (a
// document with only the servers' proxy fields and no Daemon): a host
// pointed at a proxy is served while the daemon restarts, or after a
// daemon that started the proxy process died. An error when neither
// answers.
func ServedStatus(ctx context.Context, stateDir string) (*health.Status, error) {
	raw, err := control.Dial(SocketPath(stateDir)).Status(ctx)
	if err == nil {
		var st health.Status
		if err := json.Unmarshal(raw, &st); err != nil {
			return nil, fmt.Errorf("the daemon's status: %w", err)
		}
		return &st, nil
	}
	st, perr := proxyProcessStatus(ctx, stateDir)
	if perr != nil {
		return nil, errors.Join(err, perr)
	}
	return st, nil
}

// proxyProcessStatus asks the proxy process of stateDir for its first
// word, the proxies' state, as a status document.
func proxyProcessStatus(ctx context.Context, stateDir string) (*health.Status, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	conn, err := (&net.Dialer{}).DialContext(ctx, "unix", ProxySocketPath(stateDir))
	if err != nil {
		return nil, fmt.Errorf("the proxy process: %w", err)
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { _ = conn.Close() })
	defer stop()
	m, err := proxywire.NewReader(conn).Read()
	if err != nil || m.Proxies == nil {
		return nil, fmt.Errorf("the proxy process said no state: %v", err)
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
