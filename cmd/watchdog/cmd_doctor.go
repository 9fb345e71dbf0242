package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/config"
	"github.com/mcpwatchdog/watchdog/internal/control"
	"github.com/mcpwatchdog/watchdog/internal/daemon"
	"github.com/mcpwatchdog/watchdog/internal/fsutil"
	"github.com/mcpwatchdog/watchdog/internal/mask"
	"github.com/mcpwatchdog/watchdog/internal/mcphttp"
	"github.com/mcpwatchdog/watchdog/internal/textsafe"
	"github.com/mcpwatchdog/watchdog/monitor/store"
)

// finding is one line of `watchdog doctor`: what was found, and for a
// problem, the fix.
type finding struct {
	Check   string `json:"check"`
	OK      bool   `json:"ok"`
	Detail  string `json:"detail"`
	Fix     string `json:"fix,omitempty"`
	Problem bool   `json:"problem"`
}

type doctorReport struct {
	Config   string    `json:"config"`
	StateDir string    `json:"state_dir"`
	Findings []finding `json:"findings"`
	Problems int       `json:"problems"`
}

func (r *doctorReport) add(f finding) {
	f.Problem = !f.OK && f.Fix != ""
	if f.Problem {
		r.Problems++
	}
	r.Findings = append(r.Findings, f)
}

// cmdDoctor needs no daemon: it looks at what the config names and says
// what is wrong, each with its fix. Exit 1 when it found a problem.
func cmdDoctor(ctx context.Context, c cli, args []string) int {
	var co common
	fs := newFlagSet("doctor", c, &co)
	if err := fs.Parse(args); err != nil {
		return usageErr(err)
	}
	cfg, stateDir, code := loadConfig(c, co)
	if code != exitOK {
		return code
	}
	rep := &doctorReport{Config: cfg.Path, StateDir: stateDir}
	if rep.Config == "" {
		rep.Config = "(built-in defaults)"
	}
	steps := []doctorStep{
		{"daemon", func(ctx context.Context, r *doctorReport) { doctorDaemon(ctx, r, stateDir) }},
		{"host", func(ctx context.Context, r *doctorReport) { doctorHost(ctx, r, cfg, stateDir) }},
		{"client module", func(_ context.Context, r *doctorReport) { doctorPatch(r, cfg) }},
		{"hosts", func(ctx context.Context, r *doctorReport) { doctorHosts(ctx, r, c, cfg, stateDir) }},
	}
	for _, s := range cfg.Servers {
		steps = append(steps, doctorStep{"server " + s.Name, func(ctx context.Context, r *doctorReport) { doctorServer(ctx, r, s, stateDir) }})
	}
	runDoctorSteps(ctx, rep, steps, doctorStepTimeout)
	if co.json {
		_ = writeJSON(c.stdout, rep)
	} else {
		writeDoctor(c.stdout, rep)
	}
	if rep.Problems > 0 {
		return exitFailed
	}
	return exitOK
}

// doctorStepTimeout bounds each step of doctor, so that nothing one step
// looks at (a file, a process, a server) can hang the whole report.
const doctorStepTimeout = 5 * time.Second

// doctorStep is one part of the report, named for the finding that says
// it timed out.
type doctorStep struct {
	name string
	run  func(ctx context.Context, rep *doctorReport)
}

// runDoctorSteps runs the steps in order, each under its own timeout into
// a report of its own that is merged when it finishes in time. A step past
// its timeout becomes one problem finding, and the next step starts. The
// late step's goroutine is abandoned: its context is cancelled, and what
// no context reaches (an open(2) stuck on a FIFO) ends with the process,
// which exits right after the report.
func runDoctorSteps(ctx context.Context, rep *doctorReport, steps []doctorStep, timeout time.Duration) {
	for _, st := range steps {
		sctx, cancel := context.WithTimeout(ctx, timeout)
		part := &doctorReport{}
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
				rep.add(f)
			}
		default:
			rep.add(finding{Check: st.name, Detail: fmt.Sprintf("timed out after %s: something it looks at does not answer", timeout),
				Fix: "look for a FIFO or device at a path the config names, a hung file system, or a server that accepts but never answers"})
		}
		cancel()
	}
}

func doctorDaemon(ctx context.Context, rep *doctorReport, stateDir string) {
	sctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if _, err := control.Dial(daemon.SocketPath(stateDir)).Status(sctx); err != nil {
		rep.add(finding{Check: "daemon", Detail: "not running", Fix: "start it: `watchdog run` (or `watchdog autostart enable`)"})
		return
	}
	rep.add(finding{Check: "daemon", OK: true, Detail: "running; `watchdog status` shows its view"})
}

func doctorServer(ctx context.Context, rep *doctorReport, s config.Server, stateDir string) {
	name := "server " + s.Name
	rep.add(globFinding(name+" logs", s.Logs, "set logs for "+s.Name+" so its idle timeout and store path are learned"))
	switch {
	case s.Store == "":
		rep.add(finding{Check: name + " store", OK: true, Detail: "not configured: learned from the server's log line when it announces it"})
	default:
		rep.add(storeFinding(name+" store", s.Store))
	}
	rep.add(finding{Check: name + " idle timeout", OK: true, Detail: s.IdleTimeout.String() + " (until the server's log or behaviour says otherwise)"})
	rep.add(livenessFinding(ctx, name, s))
	if s.ProxyListen != "" {
		rep.add(proxyFinding(name+" proxy", s, stateDir))
	}
}

func globFinding(check string, globs []string, fix string) finding {
	n := 0
	var special []string
	for _, g := range globs {
		m, _ := filepath.Glob(g)
		for _, p := range m {
			// The daemon never opens a FIFO, device or socket as a log;
			// say so here too, where the user looks.
			if fi, err := os.Stat(p); err == nil && !fi.Mode().IsRegular() && !fi.IsDir() {
				special = append(special, p+" is a "+fsutil.TypeName(fi.Mode()))
				continue
			}
			n++
		}
	}
	if len(special) > 0 {
		return finding{Check: check, Detail: fmt.Sprintf("%d file(s) match %v, and %s: not followed", n, globs, strings.Join(special, ", ")),
			Fix: "point the logs at regular files; a FIFO, device or socket is never read"}
	}
	if n == 0 {
		return finding{Check: check, Detail: fmt.Sprintf("no file matches %v", globs), Fix: fix}
	}
	return finding{Check: check, OK: true, Detail: fmt.Sprintf("%d file(s) match %v", n, globs)}
}

func storeFinding(check, path string) finding {
	res, err := store.Load(path)
	switch {
	case errors.Is(err, fsutil.ErrNotRegular):
		return finding{Check: check, Detail: err.Error(), Fix: "point store at the regular file the server writes (mcp-sessions.json); the daemon warns and skips anything else"}
	case errors.Is(err, store.ErrTooLarge):
		return finding{Check: check, Detail: err.Error(), Fix: "point the server's store at its mcp-sessions.json; the watchdog keeps its last good read meanwhile"}
	case errors.Is(err, store.ErrNotJSON), errors.Is(err, store.ErrUnknownShape):
		return finding{Check: check, Detail: fmt.Sprintf("cannot be parsed: %v", err), Fix: "if the server writes another format, report it with a copy of the file (ids masked)"}
	case err != nil:
		return finding{Check: check, Detail: err.Error(), Fix: "check the server's store path (mcp-sessions.json)"}
	case res.Truncated > 0:
		return finding{Check: check, OK: true, Detail: fmt.Sprintf("%s: %d session(s) kept, %d more left out (over %d, the least recently active), %d entries skipped", path, len(res.Sessions), res.Truncated, store.MaxSessions, res.Skipped)}
	}
	return finding{Check: check, OK: true, Detail: fmt.Sprintf("%s: %d session(s), %d entries skipped", path, len(res.Sessions), res.Skipped)}
}

func livenessFinding(ctx context.Context, name string, s config.Server) finding {
	headers, err := s.ExpandedHeaders(os.Getenv)
	if err != nil {
		return finding{Check: name, Detail: err.Error(), Fix: "export the variable or fix headers in the config"}
	}
	c, err := mcphttp.New(mcphttp.Options{URL: s.URL, Headers: headers, AllowInsecure: s.AllowInsecure, Timeout: 3 * time.Second})
	if err != nil {
		return finding{Check: name, Detail: err.Error(), Fix: "fix the server's url or set allow_insecure"}
	}
	resp, err := c.Ping(ctx, "", "")
	cl := mcphttp.Judge(resp, err)
	switch cl.Verdict {
	case mcphttp.Down:
		return finding{Check: name, Detail: fmt.Sprintf("%s does not answer: %s", mask.URL(s.URL), cl.Reason), Fix: "start the server, or fix its url"}
	case mcphttp.Auth:
		return finding{Check: name, Detail: cl.Reason, Fix: "set the server's headers in the config"}
	}
	shown := mask.URL(s.URL) // a query token is not shown
	return finding{Check: name, OK: true, Detail: fmt.Sprintf("%s answers (%s); `watchdog probe %s` tells more", shown, cl.Verdict, shown)}
}

// writeDoctor prints the report for people; findings quote paths, file
// contents and what servers said, so each is escaped (textsafe.Escape).
func writeDoctor(w io.Writer, rep *doctorReport) {
	esc := textsafe.Escape
	fmt.Fprintf(w, "config: %s\nstate dir: %s\n", esc(rep.Config), esc(rep.StateDir))
	for _, f := range rep.Findings {
		mark := "ok  "
		if !f.OK {
			mark = "--  "
			if f.Problem {
				mark = "FIX "
			}
		}
		fmt.Fprintf(w, "%s%s: %s\n", mark, esc(f.Check), esc(f.Detail))
		if f.Problem {
			fmt.Fprintf(w, "      fix: %s\n", esc(f.Fix))
		}
	}
	fmt.Fprintf(w, "%d problem(s)\n", rep.Problems)
}
