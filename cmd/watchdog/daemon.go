package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/config"
	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/journal"
	"github.com/mcpwatchdog/watchdog/monitor/follow"
)

// tickInterval paces time-based re-evaluation (at risk) and wake detection.
const tickInterval = time.Second

// item is one thing for the daemon loop: a signal, a follower position to
// acknowledge once the signal's events are journaled, or both.
type item struct {
	sig *health.Signal
	ack *follow.Position
}

// query asks the loop for something only the model knows.
type query struct {
	heal   bool
	server string
	reply  chan queryReply
}

type queryReply struct {
	status health.Status
	err    error
}

// daemon owns the model: one goroutine (loop) applies every signal in
// order, journals the events, then acknowledges the log positions.
type daemon struct {
	cfg      config.Config
	stateDir string
	log      *slog.Logger
	model    *health.Model
	journal  *journal.Journal
	follower *follow.Follower
	items    chan item
	queries  chan query
	now      func() time.Time
}

func newDaemon(cfg config.Config, stateDir string, log *slog.Logger, j *journal.Journal) *daemon {
	mc := health.Config{HostName: cfg.Host.Name, ClientName: cfg.Host.ClientName}
	for _, s := range cfg.Servers {
		mc.Servers = append(mc.Servers, health.ServerConfig{Name: s.Name, URL: s.URL, IdleTimeout: s.IdleTimeout.Duration})
	}
	return &daemon{cfg: cfg, stateDir: stateDir, log: log, model: health.New(mc), journal: j,
		items: make(chan item, 1024), queries: make(chan query), now: time.Now}
}

// send hands an item to the loop, or gives up when the daemon stops.
func (d *daemon) send(ctx context.Context, it item) bool {
	select {
	case d.items <- it:
		return true
	case <-ctx.Done():
		return false
	}
}

func (d *daemon) signal(ctx context.Context, sig health.Signal) bool {
	return d.send(ctx, item{sig: &sig})
}

func (d *daemon) loop(ctx context.Context) {
	ticker := time.NewTicker(tickInterval)
	defer ticker.Stop()
	clock := newWakeDetector(d.now())
	for {
		select {
		case <-ctx.Done():
			return
		case it := <-d.items:
			d.handle(it)
		case <-ticker.C:
			now := d.now()
			if gap, woke := clock.observe(now); woke {
				d.emit(d.model.Apply(health.Signal{Kind: health.SigWoke, Gap: gap}, now))
				continue
			}
			d.emit(d.model.Tick(now))
		case q := <-d.queries:
			q.reply <- d.answer(q)
		}
	}
}

func (d *daemon) handle(it item) {
	if it.sig != nil {
		d.emit(d.model.Apply(*it.sig, d.now()))
	}
	if it.ack != nil && d.follower != nil {
		d.follower.Ack(*it.ack)
	}
}

func (d *daemon) emit(evs []health.Event) {
	for _, ev := range evs {
		if err := d.journal.Write(ev); err != nil {
			d.log.Error("journal write failed", "kind", ev.Kind, "err", err)
		}
		d.log.Info(ev.Detail, "kind", ev.Kind, "server", ev.Server)
	}
}

func (d *daemon) answer(q query) queryReply {
	st := d.model.Status(d.now())
	if !q.heal {
		return queryReply{status: st}
	}
	return queryReply{status: st, err: d.heal(q.server)}
}
