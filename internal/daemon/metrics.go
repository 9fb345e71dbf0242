package daemon

import (
	"context"
	"sync"
	"time"

	"github.com/mcpwatchdog/watchdog/healer"
	"github.com/mcpwatchdog/watchdog/internal/config"
	"github.com/mcpwatchdog/watchdog/internal/metrics"
)

// newMetrics limits metric labels to the configured names and the heal
// ladder's strategies; refused hears of other users' scrapes.
func newMetrics(cfg config.Config, refused func(uid int)) *metrics.Metrics {
	names := make([]string, 0, len(cfg.Servers))
	for _, s := range cfg.Servers {
		names = append(names, s.Name)
	}
	var clients []string
	for _, h := range cfg.Hosts {
		clients = append(clients, h.ClientName)
	}
	return metrics.NewWith(&metrics.Options{Servers: names, Clients: clients,
		Strategies: healer.StrategyNames(), Refused: refused})
}

// gauges refreshes the state and idle gauges from the model (loop only);
// without a metrics listener nobody reads them, so idle work is spared.
func (d *daemon) gauges(now time.Time) {
	if d.cfg.MetricsListen == "" {
		return
	}
	for _, s := range d.modelStatus(now).Servers {
		d.metrics.SetServerState(s.Name, string(s.State))
		d.metrics.ResetSessionIdle(s.Name)
		for _, sess := range s.Sessions {
			if sess.Current {
				d.metrics.SetSessionIdle(s.Name, sess.Client, time.Duration(sess.IdleSeconds)*time.Second)
			}
		}
	}
}

// serveMetrics serves /metrics on metrics_listen when it is set; the config
// has already refused any address that is not loopback.
func (d *daemon) serveMetrics(ctx context.Context, wg *sync.WaitGroup) {
	if d.cfg.MetricsListen == "" {
		return
	}
	goRun(wg, func() {
		if err := metrics.Serve(ctx, d.cfg.MetricsListen, d.metrics, d.log); err != nil {
			d.log.Error("metrics: not served", "listen", d.cfg.MetricsListen, "err", err)
		}
	})
}
