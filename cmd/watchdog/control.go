package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/mcpwatchdog/watchdog/internal/control"
)

// errNoHealer says honestly what `heal` can do today.
var errNoHealer = errors.New("no healing strategy is available yet: restart the host to reconnect its sessions")

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
	return r.status, r.err
}

func (d *daemon) ask(ctx context.Context, q query) (queryReply, error) {
	q.reply = make(chan queryReply, 1)
	select {
	case d.queries <- q:
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

// heal is called on the loop goroutine.
func (d *daemon) heal(server string) error {
	if server != "" && !d.hasServer(server) {
		return fmt.Errorf("%w: %q", control.ErrUnknownServer, server)
	}
	return errNoHealer
}

func (d *daemon) hasServer(name string) bool {
	for _, s := range d.cfg.Servers {
		if s.Name == name {
			return true
		}
	}
	return false
}
