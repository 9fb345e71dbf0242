package daemon

import (
	"context"

	"github.com/mcpwatchdog/watchdog/internal/config"
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
