//go:build watchdogdebug

package main

import (
	"github.com/mcpwatchdog/watchdog/internal/daemon"
	"github.com/mcpwatchdog/watchdog/internal/wallclock"
)

// debugHooks reads the drills of a debug build (tests and the chaos soak
// build with -tags watchdogdebug; the shipped binary has none): a journal
// write fault, and, headless only, a skew of the daemon's wall clock.
// Each one set is said on stderr, so no run with a drill passes for a
// normal one.
func debugHooks(c cli, opts *daemon.Options, headless bool) {
	opts.JournalFaultFile = c.getenv(daemon.JournalFaultEnv)
	if headless {
		opts.ClockSkewFile = c.getenv(wallclock.SkewEnv)
	}
	for env, file := range map[string]string{daemon.JournalFaultEnv: opts.JournalFaultFile, wallclock.SkewEnv: opts.ClockSkewFile} {
		if file != "" {
			opts.Logger.Warn("debug build: a drill is set; never set it in normal use", "env", env, "file", file)
		}
	}
}
