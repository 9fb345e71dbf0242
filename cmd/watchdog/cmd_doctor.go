package main

import (
	"context"
	"fmt"
	"io"
	"runtime"

	"github.com/mcpwatchdog/watchdog/internal/autostart"
	"github.com/mcpwatchdog/watchdog/internal/control"
	"github.com/mcpwatchdog/watchdog/internal/doctor"
	"github.com/mcpwatchdog/watchdog/internal/textsafe"
)

// cmdDoctor needs no daemon: it looks at what the config names and says
// what is wrong, each with its fix (internal/doctor). Exit 1 when it found
// a problem.
func cmdDoctor(ctx context.Context, c cli, args []string) int {
	var co common
	fs := newFlagSet("doctor", c, &co)
	if err := fs.Parse(args); err != nil {
		return usageErr(err)
	}
	cfg, stateDir, code := loadAsFound(ctx, c, co)
	if code != exitOK {
		return code
	}
	rep := doctor.Run(ctx, doctor.Options{Config: cfg, StateDir: stateDir, DaemonStatus: daemonStatus(stateDir),
		Find: findOptions(c, nil), ClientVersion: version, Control: control.SocketPath(stateDir),
		Supervisor: autostart.Options{GOOS: runtime.GOOS, Getenv: c.getenv, Home: c.getenv("HOME")}})
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

// writeDoctor prints the report for people; findings quote paths, file
// contents and what servers said, so each is escaped (textsafe.Escape).
func writeDoctor(w io.Writer, rep *doctor.Report) {
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
