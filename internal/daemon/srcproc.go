package daemon

import (
	"context"
	"errors"
	"fmt"

	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/supervise"
	"github.com/mcpwatchdog/watchdog/monitor/proc"
)

// procSource is one watched host's process: each report is a host_up or
// host_down signal from that host. Only the main host's watcher hears of
// the beacons' writers (known): the patched client is the main host's.
type procSource struct {
	h     *hostWatch
	o     proc.Options
	first chan struct{} // closed once the initial report is queued
}

func (d *daemon) procSource(h *hostWatch) *procSource {
	o := proc.Options{Target: proc.Target{Name: h.cfg.Process, Port: h.cfg.Port, Helpers: h.prof.Helpers},
		Logger: d.log.With("host", h.cfg.Name), Look: h.look}
	if h.main {
		o.Known = d.client.known
	}
	return &procSource{h: h, o: o, first: make(chan struct{})}
}

func (s *procSource) Name() string { return "process " + s.h.cfg.Name }

func (s *procSource) Run(ctx context.Context, emit emitFunc) error {
	defer closeIfOpen(s.first)
	updates := make(chan proc.Update, 4)
	errc := make(chan error, 1)
	go func() {
		defer close(updates)
		errc <- proc.Watch(ctx, s.o, updates)
	}()
	for u := range updates {
		var o health.Observation = health.HostDown{}
		if u.Running {
			o = health.HostUp{PID: u.Host.PID, Started: u.Host.Started, Began: proc.Began(u.Host), Restarted: u.Restarted}
		}
		emit(signalIn{o: o, from: s.h})
		closeIfOpen(s.first)
	}
	err := <-errc
	if errors.Is(err, proc.ErrNoTarget) {
		return fmt.Errorf("%w: %w", supervise.ErrNoRestart, err) // the config's, which a restart does not change
	}
	return err
}
