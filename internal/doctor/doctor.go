// Package doctor looks at what the config names and at this machine, with
// no daemon needed, and says what is wrong, each problem with its fix:
// `watchdog doctor` prints its Report. It also works out what protects
// each host's servers (HostFacts), which `watchdog hosts` shows.
package doctor

import (
	"context"
	"fmt"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/autostart"
	"github.com/mcpwatchdog/watchdog/internal/config"
	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/host/find"
)

// Finding is one line of the report: what was found, and for a problem,
// the fix.
type Finding struct {
	Check   string `json:"check"`
	OK      bool   `json:"ok"`
	Detail  string `json:"detail"`
	Fix     string `json:"fix,omitempty"`
	Problem bool   `json:"problem"`
}

// Report is every finding, and how many are problems.
type Report struct {
	Config   string    `json:"config"`
	StateDir string    `json:"state_dir"`
	Findings []Finding `json:"findings"`
	Problems int       `json:"problems"`
}

// Add appends f; a finding that is not OK and has a fix is a problem.
func (r *Report) Add(f Finding) {
	f.Problem = !f.OK && f.Fix != ""
	if f.Problem {
		r.Problems++
	}
	r.Findings = append(r.Findings, f)
}

// Options say what to look at. Each field documents its zero value.
type Options struct {
	Config   config.Config
	StateDir string
	// DaemonStatus asks the daemon on the state directory's control
	// socket for its status (the caller knows where: only cmd/watchdog
	// imports the daemon); an error when none answers. Nil: none is taken to.
	DaemonStatus func(ctx context.Context) (*health.Status, error)
	// Find says where to look for the hosts (monitor/find.Discover).
	Find find.Options
	// ClientVersion is the probes' clientInfo.version. "": "dev".
	ClientVersion string
	// StepTimeout bounds each part of the report. 0: DefaultStepTimeout.
	StepTimeout time.Duration
	// Supervisor says where to look for the startup files (home, its
	// environment), and Control is the control socket's path, which the
	// supervisor holds too. Zero: this process's home and environment.
	Supervisor autostart.Options
	Control    string
}

// DefaultStepTimeout bounds each step of doctor, so that nothing one step
// looks at (a file, a process, a server) can hang the whole report.
const DefaultStepTimeout = 5 * time.Second

// Run looks at everything o names and returns the report.
func Run(ctx context.Context, o Options) *Report {
	if o.StepTimeout <= 0 {
		o.StepTimeout = DefaultStepTimeout
	}
	if o.ClientVersion == "" {
		o.ClientVersion = "dev"
	}
	if o.DaemonStatus == nil {
		o.DaemonStatus = func(context.Context) (*health.Status, error) { return nil, errNoDaemon }
	}
	rep := &Report{Config: o.Config.Path, StateDir: o.StateDir}
	switch {
	case o.Config.Found != nil:
		rep.Config = "(none: the machine as found)"
		rep.Add(Finding{Check: "config", OK: true, Detail: o.Config.Found.Summary()})
	case rep.Config == "":
		rep.Config = "(built-in defaults)"
	}
	steps := []step{
		{"daemon", func(ctx context.Context, r *Report) { checkDaemon(ctx, r, o) }},
		{"host", func(ctx context.Context, r *Report) { checkHosts(ctx, r, o.Config, o.StateDir) }},
		{"client module", func(_ context.Context, r *Report) { checkPatch(r, o.Config) }},
		{"hosts", func(ctx context.Context, r *Report) { checkFoundHosts(ctx, r, o) }},
		{"supervisor", func(ctx context.Context, r *Report) { checkSupervisor(ctx, r, o) }},
	}
	for _, s := range o.Config.Servers {
		steps = append(steps, step{"server " + s.Name, func(ctx context.Context, r *Report) { checkServer(ctx, r, o.Config, s, o.StateDir) }})
	}
	runSteps(ctx, rep, steps, o.StepTimeout)
	return rep
}

// step is one part of the report, named for the finding that says it
// timed out.
type step struct {
	name string
	run  func(ctx context.Context, rep *Report)
}

// runSteps runs the steps in order, each under its own timeout into
// a report of its own that is merged when it finishes in time. A step past
// its timeout becomes one problem finding, and the next step starts. The
// late step's goroutine is abandoned: its context is cancelled, and what
// no context reaches (an open(2) stuck on a FIFO) ends with the process,
// which exits right after the report.
func runSteps(ctx context.Context, rep *Report, steps []step, timeout time.Duration) {
	for _, st := range steps {
		sctx, cancel := context.WithTimeout(ctx, timeout)
		part := &Report{}
		done := make(chan struct{})
		go func() {
			defer close(done)
			st.run(sctx, part)
		}()
		select {
		case <-done:
		case <-sctx.Done():
		}
		select {
		case <-done: // also a step that finished as its time ran out
			for _, f := range part.Findings {
				rep.Add(f)
			}
		default:
			rep.Add(Finding{Check: st.name, Detail: fmt.Sprintf("timed out after %s: something it looks at does not answer", timeout),
				Fix: "look for a FIFO or device at a path the config names, a hung file system, or a server that accepts but never answers"})
		}
		cancel()
	}
}

var errNoDaemon = fmt.Errorf("no daemon")

func checkDaemon(ctx context.Context, rep *Report, o Options) {
	sctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if _, err := o.DaemonStatus(sctx); err != nil {
		rep.Add(Finding{Check: "daemon", Detail: "not running", Fix: "start it: `watchdog run` (or `watchdog autostart enable`)"})
		return
	}
	rep.Add(Finding{Check: "daemon", OK: true, Detail: "running; `watchdog status` shows its view"})
}
