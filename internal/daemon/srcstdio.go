package daemon

import (
	"path/filepath"

	"github.com/mcpwatchdog/watchdog/healer/stdio"
	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/journal"
	"github.com/mcpwatchdog/watchdog/internal/proxywire"
	"github.com/mcpwatchdog/watchdog/internal/supervise"
)

// stdioSource follows every stdio supervisor of the state directory
// (stdio.Follower); each report reaches the loop as a health.StdioSeen.
func (d *daemon) stdioSource() source {
	f := &stdio.Follower{Dir: filepath.Join(d.stateDir, proxywire.StdioDir), Hub: d.src.dirs, Log: d.log}
	return supervise.Map(f, func(r stdio.Report) item { return signalIn{o: stdioSeen(r)} })
}

// restoreStdio gives the stdio model the journal's stdio events at a
// start: what each server went through, and its supervisors until their
// sockets are linked again.
func (d *daemon) restoreStdio(recs []journal.Record) {
	evs := make([]health.Event, 0, len(recs))
	for _, r := range recs {
		evs = append(evs, health.Event(r))
	}
	d.stdio.Restore(evs)
}

// stdioSeen is a supervisor's report as the model takes it; its pid is
// its socket's, whatever the line says.
func stdioSeen(r stdio.Report) health.StdioSeen {
	return health.StdioSeen{Server: r.Server, Detail: r.Detail, Report: health.StdioReport{Kind: health.StdioKind(r.Kind), Host: r.Host,
		At: r.Time, PID: r.PID, Child: r.Child, Starts: r.Starts, Took: r.Took, Exit: r.Exit, Method: r.Method, Stderr: r.Stderr}}
}
