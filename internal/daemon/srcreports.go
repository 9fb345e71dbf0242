package daemon

import "context"

// reportQueue bounds what the actions may report before the loop takes
// it, as the loop's own intake does.
const reportQueue = 1024

// reportSource is the source of what the daemon's own actions report
// back from off the loop: the pinger's answers (keep-warm pings, liveness
// checks), a host restart that failed, and the tray's actions done (the
// client module looked at after a patch, start at login switched, a
// Protect that failed or changed nothing). An action holds only its
// reportFunc, never the daemon, and its reports reach the loop as every
// other source's observations do: through emit, under the supervisor.
type reportSource struct{ queue chan item }

func newReportSource() *reportSource { return &reportSource{queue: make(chan item, reportQueue)} }

// reportFunc hands one report to the source; false once the daemon stops.
type reportFunc func(item) bool

// reporter is the reportFunc of the actions that stop with ctx. It works
// before the source runs: the start's pings report into the queue.
func (s *reportSource) reporter(ctx context.Context) reportFunc {
	return func(it item) bool { return sendTo(ctx, s.queue, it) }
}

func (*reportSource) Name() string { return "actions' reports" }

func (s *reportSource) Run(ctx context.Context, emit emitFunc) error {
	for {
		select {
		case <-ctx.Done():
			return nil
		case it := <-s.queue:
			if !emit(it) {
				return nil
			}
		}
	}
}
