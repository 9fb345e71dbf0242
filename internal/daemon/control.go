package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpwatchdog/watchdog/internal/config"
	"github.com/mcpwatchdog/watchdog/internal/control"
	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/proxyproc"
)

// controlHandler answers the control socket through the daemon loop, the
// model's only owner.
type controlHandler struct{ d *daemon }

func (h controlHandler) Status(ctx context.Context) (any, error) {
	r, err := h.d.ask(ctx, query{})
	if err != nil {
		return nil, err
	}
	return r.status, nil
}

func (h controlHandler) Heal(ctx context.Context, server string) (any, error) {
	r, err := h.d.ask(ctx, query{heal: true, server: server})
	if err != nil {
		return nil, err
	}
	if r.err != nil {
		return nil, r.err
	}
	return map[string]any{"actions": r.actions, "status": r.status}, nil
}

func (d *daemon) ask(ctx context.Context, q query) (queryReply, error) {
	q.reply = make(chan queryReply, 1)
	select {
	case d.in.queries <- q:
	case <-ctx.Done():
		return queryReply{}, ctx.Err()
	}
	select {
	case r := <-q.reply:
		return r, nil
	case <-ctx.Done():
		return queryReply{}, ctx.Err()
	}
}

func (d *daemon) hasServer(name string) bool {
	_, ok := d.server(name)
	return ok
}

// server is the configured server of that name.
func (d *daemon) server(name string) (config.Server, bool) {
	for _, s := range d.cfg.Servers {
		if s.Name == name {
			return s, true
		}
	}
	return config.Server{}, false
}

func (d *daemon) answer(ctx context.Context, q query) queryReply {
	if !q.heal {
		return queryReply{status: d.status()}
	}
	taken, err := d.healNow(ctx, q.server)
	return queryReply{status: d.status(), actions: taken, err: err}
}

// ServedStatus is the running daemon's status document, or, when no
// daemon answers, the proxy process's word on the proxies it serves (a
// document with only the servers' proxy fields and no Daemon): a host
// pointed at a proxy is served while the daemon restarts, or after a
// daemon that started the proxy process died. An error when neither
// answers.
func ServedStatus(ctx context.Context, stateDir string) (*health.Status, error) {
	raw, err := control.Dial(control.SocketPath(stateDir)).Status(ctx)
	if err == nil {
		var st health.Status
		if err := json.Unmarshal(raw, &st); err != nil {
			return nil, fmt.Errorf("the daemon's status: %w", err)
		}
		return &st, nil
	}
	st, perr := proxyproc.Status(ctx, stateDir)
	if perr != nil {
		return nil, errors.Join(err, perr)
	}
	return st, nil
}
